declare module "autocannon" {
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (req: Request, context: Record<string, unknown>) => Request;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    timeout?: number;
    headers?: Record<string, string>;
    requests?: Request[];
    /** Resolve with the raw result (encoded histograms) so several runs can be merged with aggregateResult. */
    skipAggregateResult?: boolean;
  }
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    p99_9: number;
  }
  interface Result {
    requests: Histogram & { total: number; sent: number };
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    statusCodeStats: Record<string, { count: number }>;
    duration: number;
  }
  /** What autocannon resolves with when skipAggregateResult is set. */
  export interface RawResult {
    totalCompletedRequests: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    /** Seconds. */
    duration: number;
  }
  function autocannon(opts: Options & { skipAggregateResult: true }): Promise<RawResult>;
  function autocannon(opts: Options): Promise<Result>;
  namespace autocannon {
    function aggregateResult(results: RawResult[], opts: { url: string; connections?: number }): Result;
  }
  export default autocannon;
}
