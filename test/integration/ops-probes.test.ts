/**
 * The operator's endpoints over HTTP against the built app (docs/operating.md "Health, readiness, metrics and logs"),
 * on PGlite and PostgreSQL:
 *  - GET /healthz: 200 {status:"ok"} while the process runs, whether or not the database does.
 *  - GET /readyz: 200 when the database answers and every migration of prisma/migrations is applied; 503
 *    problem+json `service_unavailable` when the database is unreachable or a migration is missing.
 *  - GET /metrics: 404 while METRICS_TOKEN is unset, 401 without or with a wrong token, else Prometheus text with
 *    request counts and latency per route PATTERN (never a raw path: no e-mail in the output), pool, outbox and job
 *    metrics.
 *  - The log: one JSON access line per /v1 request carrying the request id, the route pattern and the program.
 * All unauthenticated except /metrics, all `cache-control: no-store`.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import {
  BACKENDS,
  customerPath,
  openStack,
  waitFor,
  type AppInstance,
  type Fixtures,
  type Stack,
} from "../support/stack";
import { TWO_PROGRAMS } from "../support/fixtures";
import { assertProblem } from "../support/assertions";

const SPEC = TWO_PROGRAMS;
const TOKEN = randomBytes(24).toString("hex");

const get = async (app: AppInstance, pathname: string, headers: Record<string, string> = {}) =>
  app.api("GET", pathname, { key: null, headers });

/** The value of the sample `name{labels}` in a Prometheus text exposition, or null when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return null;
}

for (const backend of BACKENDS) {
  describe(`health, readiness, metrics and logs [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof SPEC>>;
    let app: AppInstance;
    before(async () => {
      stack = await openStack(backend, SPEC);
      app = await stack.start({
        METRICS_TOKEN: TOKEN,
        LOYALTY_JOBS: "on",
        LOYALTY_JOBS_INTERVAL_MS: "200",
        OUTBOX_INTERVAL_MS: "200",
      });
    });
    after(() => stack?.close());

    test("/healthz and /readyz answer 200 {status:'ok'}, unauthenticated and no-store", async () => {
      for (const probe of ["/healthz", "/readyz"]) {
        const res = await get(app, probe);
        assert.equal(res.status, 200, `${probe}: ${res.text}`);
        assert.deepEqual(res.json, { status: "ok" });
        assert.equal(res.headers.get("cache-control"), "no-store");
        assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      }
      // Asked again: the migrations were compared once; the database is still pinged.
      assert.equal((await get(app, "/readyz")).status, 200);
    });

    test("/metrics: 401 without or with a wrong bearer token, nothing about the service in the answer", async () => {
      const attempts: Record<string, string>[] = [
        {},
        { authorization: `Bearer ${TOKEN.slice(1)}x` },
        { authorization: TOKEN },
      ];
      for (const headers of attempts) {
        const res = await get(app, "/metrics", headers);
        assertProblem(res, 401, "unauthorized");
        assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer/);
        assert.doesNotMatch(res.text, /loyalty_/);
      }
    });

    test("/metrics: request counts and latency per route pattern and status, pool, outbox and job runs", async () => {
      const email = `metrics-${randomBytes(4).toString("hex")}@example.com`;
      assert.equal((await stack.api("GET", customerPath(stack.programId, email))).status, 404);
      const batch = await stack.api("POST", `/v1/programs/${stack.programId}/integrations/api`, {
        body: [{ email, feature: "user", payload: {} }],
      });
      assert.equal(batch.status, 201, batch.text);
      const created = await stack.api("POST", `${customerPath(stack.programId, email)}/balance/increase`, {
        body: { points: 5, reason: "metrics" },
      });
      assert.ok(created.status === 200 || created.status === 201, created.text);
      assert.equal((await stack.api("GET", customerPath(stack.programId, email))).status, 200);
      // The jobs tick every 200 ms: wait for a run of each to be counted.
      let text = "";
      await waitFor(async () => {
        const res = await get(app, "/metrics", { authorization: `Bearer ${TOKEN}` });
        assert.equal(res.status, 200, res.text);
        assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
        assert.equal(res.headers.get("cache-control"), "no-store");
        text = res.text;
        return ["outbox", "tiers.recalculate", "points.expire"].every(
          (job) => (sample(text, "loyalty_job_runs_total", { job, outcome: "ok" }) ?? 0) >= 1,
        );
      }, "a counted run of every job");

      const route = "/v1/programs/{programId}/customers/{email}";
      assert.equal(sample(text, "loyalty_http_requests_total", { method: "GET", route, status: "404" }), 1);
      assert.equal(sample(text, "loyalty_http_requests_total", { method: "GET", route, status: "200" }), 1);
      assert.equal(
        sample(text, "loyalty_http_request_duration_seconds_count", { method: "GET", route, status: "200" }),
        1,
      );
      assert.equal(
        sample(text, "loyalty_http_request_duration_seconds_bucket", {
          method: "GET",
          route,
          status: "200",
          le: "+Inf",
        }),
        1,
      );
      assert.ok(
        (sample(text, "loyalty_http_requests_total", {
          method: "POST",
          route: `${route}/balance/increase`,
          status: String(created.status),
        }) ?? 0) >= 1,
      );
      assert.ok(!text.includes(email) && !text.includes(encodeURIComponent(email)), "no raw path in a label");
      assert.ok(!text.includes(stack.programId), "no program id in a label");
      assert.ok((sample(text, "loyalty_job_duration_seconds_count", { job: "outbox" }) ?? 0) >= 1);
      assert.equal(sample(text, "loyalty_outbox_pending_deliveries"), 0);
      assert.equal(sample(text, "loyalty_outbox_oldest_pending_age_seconds"), 0);
      assert.ok((sample(text, "loyalty_process_resident_memory_bytes") ?? 0) > 0);
      if (backend === "postgres") {
        const total = sample(text, "loyalty_db_pool_connections", { state: "total" });
        const idle = sample(text, "loyalty_db_pool_connections", { state: "idle" });
        assert.ok(total !== null && total >= 1, `pool total ${total}`);
        assert.ok(idle !== null && idle <= total);
        assert.equal(sample(text, "loyalty_db_pool_connections", { state: "waiting" }), 0);
      }
    });

    test("the log: one JSON access line per /v1 request with its request id, route pattern, status and program", async () => {
      const requestId = `ops-${randomBytes(6).toString("hex")}`;
      const email = "nobody-logged@example.com";
      const res = await stack.api("GET", customerPath(stack.programId, email), {
        headers: { "x-request-id": requestId },
      });
      assert.equal(res.status, 404);
      let line: Record<string, unknown> | undefined;
      await waitFor(() => {
        const found = app
          .logs()
          .split("\n")
          .find((l) => l.includes(requestId));
        if (found) line = JSON.parse(found) as Record<string, unknown>;
        return found !== undefined;
      }, "the access line");
      assert.equal(line!.requestId, requestId);
      assert.equal(line!.msg, "request");
      assert.equal(line!.level, "info");
      assert.equal(line!.method, "GET");
      assert.equal(line!.route, "/v1/programs/{programId}/customers/{email}");
      assert.equal(line!.status, 404);
      assert.equal(line!.programId, stack.programId);
      assert.equal(typeof line!.ms, "number");
      assert.match(String(line!.time), /^\d{4}-\d\d-\d\dT/);
      assert.ok(!JSON.stringify(line).includes(email), "the customer's e-mail is not logged");
      // Every line the app wrote after its start banner is JSON.
      const ours = app
        .logs()
        .split("\n")
        .filter((l) => l.startsWith("{"));
      assert.ok(ours.length >= 3);
      for (const l of ours) assert.doesNotThrow(() => JSON.parse(l), l);
    });

    test("not ready: /readyz 503 service_unavailable when a migration is missing; /healthz still 200; /metrics 404 without a token", async () => {
      await stack.stopAll();
      // The newest migration is no longer recorded as applied: a deploy that skipped `npm run db:migrate`.
      await stack.query(
        `DELETE FROM _prisma_migrations WHERE migration_name = (SELECT max(migration_name) FROM _prisma_migrations)`,
      );
      const bare = await stack.start();
      assert.equal((await get(bare, "/healthz")).status, 200);
      const res = await get(bare, "/readyz");
      const problem = assertProblem(res, 503, "service_unavailable");
      assert.match(problem.detail, /1 migration\(s\) not applied/);
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.match(res.headers.get("retry-after") ?? "", /^\d+$/);
      assertProblem(await get(bare, "/metrics", { authorization: `Bearer ${TOKEN}` }), 404, "not_found");
      await stack.stopAll();
    });

    if (backend === "postgres") {
      test("not ready: /readyz 503 fast when the database is unreachable; /healthz still 200", async () => {
        await stack.stopAll();
        // A port nothing listens on (the app starts without touching the database).
        const bare = await stack.start({ DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" });
        assert.equal((await get(bare, "/healthz")).status, 200);
        const started = Date.now();
        const problem = assertProblem(await get(bare, "/readyz"), 503, "service_unavailable");
        assert.ok(Date.now() - started < 3000, "answered within the readiness timeout");
        assert.match(problem.detail, /database/);
        assert.doesNotMatch(problem.detail, /127\.0\.0\.1|ECONNREFUSED/);
      });
    }
  });
}
