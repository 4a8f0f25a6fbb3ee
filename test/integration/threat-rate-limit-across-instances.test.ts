/**
 * Threat: an integrator (or a stolen key) multiplies its rate limit by the number of app instances behind the load
 * balancer, because each instance kept its own bucket. With PostgreSQL the buckets are rows of one table
 * (lib/api/rate-limit.ts), so two `next start` processes on one database must together allow what one would,
 * within ±20%. PGlite is one process: there the in-process bucket must give the same numbers.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BACKENDS, openStack, type ApiResponse, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { fixtures, program } from "../support/fixtures";
import { assertProblem, assertRateHeaders } from "../support/assertions";

const RATE = 2;
const BURST = 20;

const SPEC = fixtures("ratelimit-cluster", program("Limited", { rate: RATE, burst: BURST }));

for (const backend of BACKENDS) {
  describe(`rate limits hold for the cluster, not per instance [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof SPEC>>;
    let instances: AppInstance[];
    before(async () => {
      stack = await openStack(backend, SPEC);
      // PGlite: one process may open the directory, so one instance; PostgreSQL: two on one database.
      instances = backend === "postgres" ? await Promise.all([stack.start(), stack.start()]) : [await stack.start()];
    });
    after(() => stack?.close());

    test("requests alternating between the instances get one key's limit (burst + rate × time, ±20%), then 429", async () => {
      const path = `/v1/programs/${stack.programId}/customers/${encodeURIComponent("nobody@example.com")}`;
      const started = Date.now();
      let allowed = 0;
      let refused = 0;
      let firstRefusal: ApiResponse | null = null;
      for (let i = 0; i < BURST * 3; i++) {
        const res = await instances[i % instances.length]!.api("GET", path);
        assertRateHeaders(res, BURST, Math.ceil(BURST / RATE));
        if (res.status === 429) {
          refused++;
          firstRefusal ??= res;
        } else {
          assert.equal(res.status, 404, res.text);
          allowed++;
        }
      }
      const seconds = (Date.now() - started) / 1000;
      const oneInstance = BURST + RATE * seconds;
      assert.ok(
        Math.abs(allowed - oneInstance) <= 0.2 * oneInstance,
        `${allowed} requests allowed in ${seconds.toFixed(2)} s by ${instances.length} instance(s); one instance allows ${oneInstance.toFixed(1)}`,
      );
      assert.ok(refused > 0);
      assertProblem(firstRefusal!, 429, "rate_limited");
      assert.match(firstRefusal!.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
      assert.equal(firstRefusal!.headers.get("ratelimit-remaining"), "0");
    });
  });
}
