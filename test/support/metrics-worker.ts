/**
 * A node:cluster worker for test/unit/ops-metrics.test.ts: records REQUESTS requests through lib/ops/metrics.ts,
 * then answers "scrape" messages with what its scrape() returns (the cluster's merged metrics, or its own).
 */
import { recordRequest, scrape } from "@/lib/ops/metrics";

for (let i = 0; i < Number(process.env.REQUESTS); i++) recordRequest("GET", "/v1/openapi.json", 200, 0.003);
process.on("message", (msg: unknown) => {
  if (msg === "scrape") void scrape().then((text) => process.send!({ scraped: text }));
});
process.send!("ready");
