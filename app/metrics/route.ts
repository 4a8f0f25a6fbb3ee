// GET /metrics: Prometheus text exposition, with `Authorization: Bearer <METRICS_TOKEN>`; 404 while no token is set.
import { metricsResponse } from "@/lib/api/metrics-endpoint";

export const dynamic = "force-dynamic";

export const GET = metricsResponse;
