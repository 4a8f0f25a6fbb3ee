import "server-only";
import cluster from "node:cluster";
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * The Prometheus metrics of one server process (prom-client), and how a scrape sees every process of a cluster.
 *
 *  - HTTP: `loyalty_http_requests_total` and `loyalty_http_request_duration_seconds` by method, route PATTERN
 *    (`/v1/programs/{programId}/customers/{email}`, never the raw path: cardinality) and status, recorded once per
 *    request by `withEdge` (lib/api/edge.ts), which both `next start` and the /v1 front pass through.
 *  - Database pool (PostgreSQL): connections total, idle, and requests waiting for one (`watchPool`).
 *  - Outbox: pending deliveries and the age of the oldest, read from the database at scrape time (`watchOutbox`).
 *  - Keyed customer events written together (`recordBatchedEvents`, lib/api/event-batches.ts): written with their
 *    batch, or each alone after the batch refused (a race, a replay, something due).
 *  - Jobs: runs by job and outcome, and their duration (`recordJobRun`, from lib/jobs/scheduler.ts).
 *  - One-statement writes handed over to their locked path, by why (`recordHandover`, lib/api/idempotency.ts): a
 *    concurrent write overtook the statement (`race`), points due to expire first (`expiry_due`), a tier period to
 *    close (`tier_due`). A few per thousand writes is expected; many `race` mean one customer is written hot.
 *  - Node's process metrics (memory, CPU, event-loop lag) with the `loyalty_` prefix.
 *
 * Clustered (node:cluster): call `startMetricsAggregator()` in the primary BEFORE forking the workers. A scrape
 * lands on one worker, which asks the primary; the primary collects every worker's metrics over the cluster's IPC
 * channel and merges them (prom-client's AggregatorRegistry.aggregate: counters and histograms summed, the pool
 * gauges summed, the database-wide outbox gauges the largest of the workers'). Not clustered, or the primary did not start
 * the aggregator: the scrape answers this process's own metrics.
 */

const PREFIX = "loyalty_";
const COLLECT = "loyalty:metrics:collect"; // primary → worker: send me your metrics
const COLLECTED = "loyalty:metrics:collected"; // worker → primary: here they are
const SCRAPE = "loyalty:metrics:scrape"; // worker → primary: a scrape arrived, merge everyone's
const SCRAPED = "loyalty:metrics:scraped"; // primary → worker: the merged text
/** Set by startMetricsAggregator for the workers it forks: the primary answers SCRAPE. */
const AGGREGATED_ENV = "LOYALTY_METRICS_AGGREGATED";
const IPC_TIMEOUT_MS = 3_000;

/** One process's metrics as prom-client's JSON (what AggregatorRegistry.aggregate merges). */
type MetricsJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;
type Message = { type?: string; id?: number; metrics?: MetricsJson; text?: string };
type PoolStats = { totalCount: number; idleCount: number; waitingCount: number };

function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  const labelNames = ["method", "route", "status"] as const;
  const pools: PoolStats[] = [];
  let outbox: (() => Promise<{ pending: number; oldestAgeSeconds: number }>) | undefined;
  const state = {
    registry,
    pools,
    setOutbox: (read: typeof outbox) => (outbox = read),
    requests: new Counter({
      name: `${PREFIX}http_requests_total`,
      help: "HTTP requests answered",
      labelNames,
      registers: [registry],
    }),
    duration: new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: "Time from the request reaching the route to its answer",
      labelNames,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    handovers: new Counter({
      name: `${PREFIX}statement_handovers_total`,
      help: "One-statement writes handed over to their locked path (a transaction), by why",
      labelNames: ["why"],
      registers: [registry],
    }),
    batchedEvents: new Counter({
      name: `${PREFIX}event_batch_events_total`,
      help: "Keyed customer events sent in a batch (lib/api/event-batches.ts): written with it, or each alone after it refused",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    jobRuns: new Counter({
      name: `${PREFIX}job_runs_total`,
      help: "Scheduled job runs by outcome (ok, failed, unavailable: the database was)",
      labelNames: ["job", "outcome"],
      registers: [registry],
    }),
    jobDuration: new Histogram({
      name: `${PREFIX}job_duration_seconds`,
      help: "Duration of scheduled job runs",
      labelNames: ["job"],
      buckets: [0.005, 0.025, 0.1, 0.5, 1, 5, 30, 120],
      registers: [registry],
    }),
  };
  new Gauge({
    name: `${PREFIX}db_pool_connections`,
    help: "PostgreSQL pool connections: total open, idle, and requests waiting for one",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const sum = (key: keyof PoolStats) => pools.reduce((n, p) => n + p[key], 0);
      this.set({ state: "total" }, sum("totalCount"));
      this.set({ state: "idle" }, sum("idleCount"));
      this.set({ state: "waiting" }, sum("waitingCount"));
    },
  });
  // Database-wide: every worker reads the same numbers, so a cluster scrape takes the largest (a worker that never read them says 0), not their sum.
  const pending = new Gauge({
    name: `${PREFIX}outbox_pending_deliveries`,
    help: "Webhook and push deliveries not yet delivered or given up",
    registers: [registry],
    aggregator: "max",
  });
  new Gauge({
    name: `${PREFIX}outbox_oldest_pending_age_seconds`,
    help: "Age of the oldest pending delivery (0: none pending)",
    registers: [registry],
    aggregator: "max",
    async collect() {
      if (!outbox) return;
      try {
        const { pending: count, oldestAgeSeconds } = await outbox();
        pending.set(count);
        this.set(oldestAgeSeconds);
      } catch {
        // The database is down: /readyz says so; the scrape still answers the process's own numbers.
      }
    },
  });
  return state;
}

// On globalThis: Next may load this module in more than one bundle; there must be one set of metrics per process.
const holder = globalThis as unknown as { __loyaltyMetrics?: ReturnType<typeof create> };
const metrics = () => (holder.__loyaltyMetrics ??= create());

/** One answered HTTP request. `route` is a pattern, never a raw path. */
export function recordRequest(method: string, route: string, status: number, seconds: number): void {
  const m = metrics();
  const labels = { method, route, status: String(status) };
  m.requests.inc(labels);
  m.duration.observe(labels, seconds);
}

/** A one-statement write that its locked path takes over (`why`: race, expiry_due, tier_due). */
export function recordHandover(why: string): void {
  metrics().handovers.inc({ why });
}

/** Keyed customer events of a batch: `written` with it, or `alone` (each in its own statement after it refused). */
export function recordBatchedEvents(outcome: "written" | "alone", events: number): void {
  metrics().batchedEvents.inc({ outcome }, events);
}

/** One run of a scheduled job: "ok", "failed" (a bug), or "unavailable" (the database was). */
export function recordJobRun(job: string, outcome: "ok" | "failed" | "unavailable", seconds: number): void {
  const m = metrics();
  m.jobRuns.inc({ job, outcome });
  m.jobDuration.observe({ job }, seconds);
}

/** Reports a pg pool's usage (its live counters are read at each scrape). */
export function watchPool(pool: PoolStats): void {
  metrics().pools.push(pool);
}

/** How the outbox gauges are read at scrape time (lib/ops/readiness.ts registers the database query). */
export function watchOutbox(read: () => Promise<{ pending: number; oldestAgeSeconds: number }>): void {
  metrics().setOutbox(read);
}

/** The content type of `scrape()`'s text. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** The text exposition of this process's metrics, or of every worker's when the cluster's primary aggregates. */
export async function scrape(): Promise<string> {
  if (cluster.isWorker && process.env[AGGREGATED_ENV] === "1" && process.send) {
    const merged = await askPrimary().catch(() => null);
    if (merged !== null) return merged;
  }
  return metrics().registry.metrics();
}

/** The worker's side of the IPC, once per process however many bundles load this module. */
const ipc = ((
  globalThis as unknown as {
    __loyaltyMetricsIpc?: { nextId: number; waiting: Map<number, (text: string) => void>; listening: boolean };
  }
).__loyaltyMetricsIpc ??= {
  nextId: 0,
  waiting: new Map(),
  listening: false,
});
const waiting = ipc.waiting;

function askPrimary(): Promise<string> {
  const id = ipc.nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error("the cluster primary did not answer the metrics request"));
    }, IPC_TIMEOUT_MS);
    waiting.set(id, (text) => {
      clearTimeout(timer);
      resolve(text);
    });
    process.send!({ type: SCRAPE, id });
  });
}

// A worker answers the primary's collection requests with its own metrics, and receives merged scrapes.
if (cluster.isWorker && !ipc.listening) {
  ipc.listening = true;
  process.on("message", (msg: Message) => {
    if (msg?.type === COLLECT && typeof msg.id === "number") {
      void metrics()
        .registry.getMetricsAsJSON()
        .then((list) => process.send?.({ type: COLLECTED, id: msg.id, metrics: list }));
    } else if (msg?.type === SCRAPED && typeof msg.id === "number") {
      waiting.get(msg.id)?.(msg.text ?? "");
      waiting.delete(msg.id);
    }
  });
}

/**
 * For the primary of a node:cluster server, called once before it forks the workers (the forks inherit the
 * environment that tells them to ask): answers each worker's scrape with the metrics of every live worker, merged.
 * A worker that does not answer within 3 s is left out of that scrape. Idempotent. No HTTP server of its own.
 */
export function startMetricsAggregator(): void {
  if (!cluster.isPrimary || process.env[AGGREGATED_ENV] === "1") return;
  process.env[AGGREGATED_ENV] = "1";
  let nextCollect = 0;
  const collecting = new Map<number, (list: MetricsJson) => void>();
  const collectAll = async (): Promise<string> => {
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w?.isConnected());
    const lists = await Promise.all(
      workers.map(
        (worker) =>
          new Promise<MetricsJson | null>((resolve) => {
            const id = nextCollect++;
            const timer = setTimeout(() => {
              collecting.delete(id);
              resolve(null);
            }, IPC_TIMEOUT_MS);
            collecting.set(id, (list) => {
              clearTimeout(timer);
              resolve(list);
            });
            worker!.send({ type: COLLECT, id });
          }),
      ),
    );
    return AggregatorRegistry.aggregate(lists.filter((l): l is MetricsJson => l !== null)).metrics();
  };
  cluster.on("message", (worker, msg: Message) => {
    if (msg?.type === COLLECTED && typeof msg.id === "number") {
      collecting.get(msg.id)?.(msg.metrics ?? []);
      collecting.delete(msg.id);
    } else if (msg?.type === SCRAPE && typeof msg.id === "number") {
      void collectAll().then(
        (text) => worker.isConnected() && worker.send({ type: SCRAPED, id: msg.id, text }),
        () => {}, // the worker times out and answers its own metrics
      );
    }
  });
}
