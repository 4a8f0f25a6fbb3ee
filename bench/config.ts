/**
 * The bench's settings (environment variables, documented in bench/run.ts's header), its row names and its targets.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..");
const env = process.env;
const num = (name: string, fallback: number) => {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}=${raw} is not a number`);
  return n;
};

export const CUSTOMERS = num("BENCH_CUSTOMERS", 100_000);
/** The customers of the clock row's test program (and of its live reference). */
export const clockCustomers = () => num("BENCH_CLOCK_CUSTOMERS", 10_000);
/** The customers of the birthdays row's live program (loaded by SQL). */
export const birthdayCustomers = () => num("BENCH_BIRTHDAY_CUSTOMERS", 200_000);
/** Customers given an opening balance when loaded (ledger history before the first measurement). */
export const HISTORY = num("BENCH_HISTORY", 5_000);
export const SECONDS = num("BENCH_SECONDS", 15);
export const WARMUP = num("BENCH_WARMUP_SECONDS", 3);
export const ROUNDS = Math.max(1, num("BENCH_ROUNDS", 3));
export const POOL = String(num("BENCH_POOL_SIZE", 10));
export const CONNECTIONS = num("BENCH_CONNECTIONS", 32);
/** Seconds per fixed-rate latency run (per rate and route). */
export const RATE_SECONDS = num("BENCH_RATE_SECONDS", 10);
export const RATES = (env.BENCH_RATES ?? "100,300").split(",").map((s) => Number(s.trim()));
/** Requests per memory round (RSS is read after the first tenth of round 1 and at the end of every round). */
export const MEMORY_REQUESTS = num("BENCH_MEMORY_REQUESTS", 100_000);
export const MEMORY_ROUNDS = Math.max(1, num("BENCH_MEMORY_ROUNDS", 3));
/** The rounds get fewer requests when the server is too slow to send them all in this long. */
export const MEMORY_MAX_SECONDS = num("BENCH_MEMORY_MAX_SECONDS", 240);
export const DASHBOARD = env.BENCH_DASHBOARD === "1";
export const DEADLINE = num("BENCH_DEADLINE_SECONDS", 1320);

/**
 * The rows, in the order they run. `BENCH_ONLY=get,increase` runs only those (the others are skipped; the servers a
 * row needs start when the first row needing them runs).
 */
export const ROWS = [
  "floor", // the framework floor: a constant-JSON app-router route handler of this app, and the 401 path
  "get", // GET /customers/{email}: ours, next start, bare node:http + pg
  "increase", // POST …/balance/increase with an Idempotency-Key: ours, next start, bare
  "latency", // p50/p99 at fixed rates (BENCH_RATES) for GET and increase
  "workers", // 1 vs 2 workers: the 401 path and GET
  "memory", // RSS of the production server after 10k and 100k requests, three rounds
  "ratelimit", // GET with the rate-limit buckets in PostgreSQL against the same build with them in memory
  "batch100", // POST /integrations/api with 100 items, ours vs bare
  "extra", // increase without a key, hot spot, coupon import and assignment, reward redemption (ours only)
  "batch1000", // one 1,000-item batch, median of 5, ours vs bare
  "node24", // GET and increase on Node 24 against the same rows on this Node (when a Node 24 binary is found)
  "corrections", // reverse and refund (locked path) next to increase on the same server (ours only)
  "clock", // a test program of BENCH_CLOCK_CUSTOMERS customers advanced by a year, beside the live sweeps of the same work
  "birthdays", // the daily birthday sweep of a live program of BENCH_BIRTHDAY_CUSTOMERS customers (lifecycle campaigns)
  "evaluator", // the campaign evaluator alone, in process on one core: evaluations/s of a 10-leaf tree
  "events", // keyed POST …/events against 20 active campaigns (5 match) next to the keyed increase (ours only)
  "segments", // segment preview of a 3-condition filter (p50/p99) and a full membership recompute (ours only)
  "simulate", // POST …/campaigns/{id}/simulate over BENCH_SIMULATE_EVENTS events: replayed events per minute
] as const;
export type RowId = (typeof ROWS)[number];

const ONLY = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(",").map((s) => s.trim())) : null;
if (ONLY) {
  const unknown = [...ONLY].filter((id) => !(ROWS as readonly string[]).includes(id));
  if (unknown.length) throw new Error(`BENCH_ONLY: unknown row(s) ${unknown.join(", ")}; rows are ${ROWS.join(", ")}`);
}
export const ONLY_ROWS = ONLY ? [...ONLY] : null;
const EXTRA = env.BENCH_EXTRA !== "0";

/** Whether the row runs: BENCH_ONLY, and BENCH_EXTRA=0 drops the optional rows. */
export const runs = (id: RowId) =>
  (ONLY === null || ONLY.has(id)) && (EXTRA || !["extra", "memory", "node24", "ratelimit"].includes(id));

/**
 * The Node 24 binary for the node24 row and the memory row's second run, with its version: BENCH_NODE24, or where
 * `npm install --prefix /tmp/node24 node@24` puts it; null when neither exists.
 */
export function node24(): { binary: string; version: string } | null {
  const given = env.BENCH_NODE24?.trim();
  if (given && !existsSync(given)) throw new Error(`BENCH_NODE24=${given} does not exist`);
  const binary = given || "/tmp/node24/node_modules/node/bin/node";
  if (!existsSync(binary)) return null;
  return { binary, version: execFileSync(binary, ["--version"], { encoding: "utf8" }).trim() };
}

/** The targets (issue 13), each checked against references measured in the same run. */
export const TARGETS = {
  /** GET customer: ours req/s ÷ bare node:http + pg req/s, at saturation. */
  getRatio: 0.6,
  /** POST increase with an Idempotency-Key: ours ÷ bare. */
  increaseRatio: 0.8,
  /** p99 at the highest fixed rate (300 req/s). */
  getP99Ms: 25,
  increaseP99Ms: 50,
  batch1000Ms: 200,
  /** RSS at the end of every memory round within this fraction of RSS after the first 10k requests. */
  rssGrowth: 0.1,
} as const;
