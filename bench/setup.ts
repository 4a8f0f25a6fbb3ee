/**
 * The bench's data: a program with three tiers and an API key (through the CLI), CUSTOMERS customers loaded
 * through ours' own batch endpoint, and the requests the rows send.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { demoCustomers } from "@/scripts/seed/demo";
import { CUSTOMERS, HISTORY } from "./config";
import { log } from "./lifecycle";
import type { LoadRequest } from "./load";
import { cli, runCommand, type Server } from "./servers";

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

export interface Program {
  programId: string;
  key: string;
}

/** The program's tiers: name, required points, earning factor. */
const TIERS = [
  ["Bronze", 0, 1],
  ["Silver", 1000, 1.25],
  ["Gold", 5000, 1.5],
] as const;

/** Schema, program, tiers, API key (with a rate limit high enough never to bite). */
export async function createProgram(dbEnv: NodeJS.ProcessEnv): Promise<Program> {
  await runCommand("db:migrate", "npm", ["run", "--silent", "db:migrate"], dbEnv);
  const { programId } = await cli(dbEnv, "program", "create", "--name", "Bench");
  for (const [name, points, factor] of TIERS) {
    await cli(
      dbEnv,
      "tier",
      "create",
      "--program",
      programId!,
      "--name",
      name,
      "--required-points",
      String(points),
      "--factor",
      String(factor),
    );
  }
  const { key } = await cli(
    dbEnv,
    "apikey",
    "create",
    "--program",
    programId!,
    "--name",
    "bench",
    "--rate-limit",
    "1000000",
  );
  return { programId: programId!, key: key! };
}

/** The program's customers and the requests built on them. */
export class Workload {
  readonly headers: Record<string, string>;
  readonly base: string;
  readonly people = demoCustomers(CUSTOMERS);
  readonly emails = this.people.map((p) => p.email);
  private readonly tag = Math.random().toString(36).slice(2, 7);
  private fresh = 0;

  constructor(readonly program: Program) {
    this.headers = { "api-key": program.key, "content-type": "application/json" };
    this.base = `/v1/programs/${program.programId}`;
  }

  /** Loads every customer through the server's batch endpoint (1,000 per request, two at a time). */
  async load(server: Server, sql: pg.Pool) {
    let next = 0;
    let loaded = 0;
    const loader = async () => {
      while (next < this.people.length) {
        const from = next;
        next += 1000;
        await this.postBatch(server, this.people.slice(from, from + 1000), `loading customers ${from}…`);
        loaded += Math.min(1000, this.people.length - from);
        if (loaded % 10_000 === 0 || loaded === this.people.length)
          log(`  loaded ${loaded.toLocaleString("en")} customers`);
      }
    };
    await Promise.all([loader(), loader()]);
    const { rows } = await sql.query(`SELECT count(*)::int AS n FROM "Customer" WHERE "programId" = $1`, [
      this.program.programId,
    ]);
    if (rows[0].n !== CUSTOMERS) throw new Error(`expected ${CUSTOMERS} customers, found ${rows[0].n}`);
    await this.openingBalances(server);
    await sql.query("VACUUM ANALYZE");
  }

  /**
   * Opening balances (`loyalty` items, one `adjust` ledger entry and lot each) for the first HISTORY customers, so
   * the ledger is not empty when the statistics are taken: a program in service has history. On an empty ledger
   * every connection that first inserts a lot caches a sequential scan for the lot's foreign-key check on
   * "LedgerEntry", which then reads the growing table on every insert until autovacuum next analyses it (up to a
   * minute): whichever server wrote first in a run paid for it (pg_stat_user_tables: 0.1–0.2 sequential scans of
   * ~2,000 rows per increase), and ratios against a server that started later were off by 10–15%.
   */
  private async openingBalances(server: Server) {
    const count = Math.min(HISTORY, this.people.length);
    for (let from = 0; from < count; from += 1000) {
      const items = this.people.slice(from, Math.min(count, from + 1000)).map((p, i) => ({
        email: p.email,
        feature: "loyalty",
        payload: {
          balance: 100 + ((from + i) % 50) * 100,
          memberSince: "2025-01-01T00:00:00Z",
          tierStatus: TIERS[0][0],
        },
      }));
      await this.postBatch(server, items, `opening balances ${from}…`);
    }
    log(`  ${count.toLocaleString("en")} opening balances (ledger history)`);
  }

  /** One Create/Update batch (POST /integrations/api); anything but its 201 stops the bench, saying what failed. */
  private async postBatch(server: Server, items: unknown[], what: string) {
    const res = await fetch(`${server.baseUrl}${this.base}/integrations/api`, {
      method: "POST",
      headers: this.headers,
      body: JSON.stringify(items),
    });
    if (res.status !== 201) throw new Error(`${what}: ${res.status} ${(await res.text()).slice(0, 500)}`);
  }

  /** A customer the program does not have yet: a generator row with a unique e-mail and external id. */
  newCustomer(payload: Record<string, unknown> = {}) {
    const p = pick(this.people);
    const n = this.fresh++;
    return {
      email: p.email.replace("@", `+${this.tag}${n}@`),
      feature: "user",
      payload: { ...p.payload, externalCustomerId: `BENCH-${this.tag}-${n}`, ...payload },
    };
  }

  /** An existing customer, with fields from another generator row: an update. */
  existingCustomer(payload: Record<string, unknown> = {}) {
    const i = Math.floor(Math.random() * this.people.length);
    const other = pick(this.people).payload;
    return {
      email: this.people[i]!.email,
      feature: "user",
      payload: {
        externalCustomerId: this.people[i]!.payload.externalCustomerId,
        firstName: other.firstName,
        phone: other.phone,
        emailVerified: Math.random() < 0.5,
        ...payload,
      },
    };
  }

  /** A batch for POST /integrations/api: half new customers, half updates. */
  batchBody(size: number) {
    return JSON.stringify(
      Array.from({ length: size }, (_, i) => (i % 2 ? this.existingCustomer() : this.newCustomer())),
    );
  }

  /** GET /customers/{email} of a random customer. */
  getCustomer(): LoadRequest {
    return {
      method: "GET",
      headers: this.headers,
      setupRequest: (req) => ({ ...req, path: `${this.base}/customers/${encodeURIComponent(pick(this.emails))}` }),
    };
  }

  /** The same path without an api-key: a 401 that touches no database. */
  unauthorized(): LoadRequest {
    return { method: "GET", path: `${this.base}/customers/x%40example.com` };
  }

  /** POST …/balance/increase for a random customer of `among`, with a fresh Idempotency-Key when `keyed`. */
  increase(keyed: boolean, among: readonly string[] = this.emails): LoadRequest {
    return {
      method: "POST",
      headers: this.headers,
      setupRequest: (req) => ({
        ...req,
        path: `${this.base}/customers/${encodeURIComponent(pick(among))}/balance/increase`,
        headers: keyed ? { ...this.headers, "idempotency-key": randomUUID() } : this.headers,
        body: JSON.stringify({ points: 1 + Math.floor(Math.random() * 100) }),
      }),
    };
  }

  batch(size: number): LoadRequest {
    return {
      method: "POST",
      path: `${this.base}/integrations/api`,
      headers: this.headers,
      setupRequest: (req) => ({ ...req, body: this.batchBody(size) }),
    };
  }
}

/** Balance = Σ ledger = Σ lots ≥ 0 for every customer of the program: the e-mails of those it does not hold for. */
export async function brokenBalances(sql: pg.Pool, programId: string): Promise<string[]> {
  const { rows } = await sql.query(
    `SELECT c.email FROM "Customer" c JOIN "LoyaltyData" l ON l."customerId" = c.id
     WHERE c."programId" = $1 AND (l.balance <> (SELECT coalesce(sum(points), 0) FROM "LedgerEntry" e WHERE e."customerId" = c.id)
        OR l.balance <> (SELECT coalesce(sum(remaining), 0) FROM "PointLot" p WHERE p."customerId" = c.id) OR l.balance < 0)`,
    [programId],
  );
  return rows.map((r) => r.email);
}
