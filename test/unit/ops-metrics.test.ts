/**
 * lib/ops/metrics.ts and lib/api/route-pattern.ts: route patterns never carry a raw path (label cardinality), and a
 * scrape on one node:cluster worker sees every worker's metrics once the primary runs `startMetricsAggregator()`
 * (real forked workers over the cluster's IPC channel), while an unclustered process answers its own.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import cluster, { type Worker } from "node:cluster";
import path from "node:path";
import { recordRequest, scrape, startMetricsAggregator } from "@/lib/ops/metrics";
import { routeOf } from "@/lib/api/route-pattern";

const P = "0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a";
const count = (text: string, status = "200") =>
  Number(
    new RegExp(
      `^loyalty_http_requests_total\\{method="GET",route="/v1/openapi.json",status="${status}"\\} (\\d+)$`,
      "m",
    ).exec(text)?.[1] ?? NaN,
  );

describe("routeOf", () => {
  test("a /v1 path gives its OpenAPI pattern and the program id", () => {
    assert.deepEqual(routeOf(`/v1/programs/${P}/customers/a%40b.io/balance/increase`), {
      route: "/v1/programs/{programId}/customers/{email}/balance/increase",
      programId: P,
    });
    assert.deepEqual(routeOf("/v1/openapi.json"), { route: "/v1/openapi.json" });
    assert.deepEqual(routeOf(`/v1/programs/${P}/nope`), { route: "/v1/{unknown}" });
  });
  test("other paths keep fixed segments and hide ids", () => {
    assert.equal(routeOf(`/api/staff/${P}/customers/${P}/balance`).route, "/api/staff/{id}/customers/{id}/balance");
    assert.equal(routeOf("/api/staff/x/search").route, "/api/staff/x/search");
  });
});

describe("metrics across node:cluster workers", () => {
  const workers: Worker[] = [];
  after(() => {
    for (const w of workers) w.kill();
  });

  test("unclustered: a scrape answers this process's own metrics", async () => {
    recordRequest("GET", "/v1/openapi.json", 500, 0.01);
    const text = await scrape();
    assert.equal(count(text, "500"), 1);
    assert.match(text, /^loyalty_process_resident_memory_bytes \d+/m);
  });

  test("clustered: a scrape on either worker sums both workers' request counts", async () => {
    startMetricsAggregator();
    cluster.setupPrimary({
      exec: path.join(import.meta.dirname, "../support/metrics-worker.ts"),
      execArgv: ["--import", "tsx"],
      silent: false,
    });
    for (const requests of ["3", "5"]) workers.push(cluster.fork({ REQUESTS: requests }));
    await Promise.all(workers.map((w) => new Promise((resolve) => w.once("message", resolve))));
    for (const worker of workers) {
      // The worker's own request to the primary passes by on the same channel: wait for the answer.
      const reply = new Promise<{ scraped: string }>((resolve) => {
        const listener = (msg: { scraped?: string }) => {
          if (msg?.scraped === undefined) return;
          worker.off("message", listener);
          resolve(msg as { scraped: string });
        };
        worker.on("message", listener);
      });
      worker.send("scrape");
      const { scraped } = await reply;
      assert.equal(count(scraped), 8, scraped.slice(0, 500));
      // The primary's own metrics are not in it: it serves no request.
      assert.ok(Number.isNaN(count(scraped, "500")));
    }
  });
});
