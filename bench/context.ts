/**
 * What the row families share: the database, the workload, the servers (started when a row first needs them) and
 * the results.
 */
import type pg from "pg";
import type { RowId } from "./config";
import type { Figures } from "./load";
import { oursIsNextStart, startBaseline, startNextStart, startOurs, type Server } from "./servers";
import type { Workload } from "./setup";

/** One line of the results table: ours, the references measured beside it, and the verdict. */
export interface Row {
  family: RowId;
  name: string;
  /** Connections, or a fixed rate such as "300/s". */
  load: string;
  ours: Figures;
  /** The references in the same run, e.g. `next start`, the bare node:http + pg server, the framework floor. */
  refs: { label: string; figures: Figures }[];
  /** ours ÷ the reference named in ratioOf (req/s; for latency rows none). */
  ratio?: number;
  ratioOf?: string;
  target?: string;
  pass?: boolean;
  note?: string;
}

export interface MemoryResult {
  /** The Node version the server ran on. */
  node: string;
  server: string;
  requestsPerRound: number;
  /** Requests before the reference reading (10,000 by default). */
  firstRequests: number;
  rssAfterFirstMiB: number;
  rounds: { requests: number; rssMiB: number; processes: number; growth: number }[];
  target: string;
  pass: boolean;
}

export interface Results {
  rows: Row[];
  /** One per runtime measured: the bench's Node, then Node 24 when a binary is found. */
  memory: MemoryResult[];
  batch1000: {
    ours: { times: number[]; median: number };
    baseline: { times: number[]; median: number };
    target: string;
    pass: boolean;
  } | null;
  couponImport: { codes: number; seconds: number } | null;
  /** The clock row (bench/rows/clock.ts). */
  clockAdvance: {
    customers: number;
    steps: number;
    expiredLots: number;
    seconds: number;
    sweepSeconds: number;
    target: string;
    pass: boolean;
  } | null;
  /** The birthdays row (bench/rows/birthdays.ts). */
  birthdays: {
    customers: number;
    birthdays: number;
    seconds: number;
    idleSeconds: number;
    indexedMs: number;
    scanMs: number;
    birthdaysAtMillion: number;
    extrapolatedSeconds: number;
    target: string;
    pass: boolean;
  } | null;
  node24: { binary: string; version: string } | null;
  notes: string[];
}

export class Context {
  readonly results: Results = {
    rows: [],
    memory: [],
    batch1000: null,
    couponImport: null,
    clockAdvance: null,
    birthdays: null,
    node24: null,
    notes: [],
  };
  private nextStartServer: Promise<Server> | null = null;
  private baselineServer: Promise<Server> | null = null;
  private sameStatementServer: Promise<Server> | null = null;

  constructor(
    readonly dbEnv: NodeJS.ProcessEnv,
    readonly sql: pg.Pool,
    readonly work: Workload,
    /** The production server with one worker: the "ours" of every row unless a row says otherwise. */
    readonly ours: Server,
  ) {}

  /** Plain `next start` of the same build; null when the production server is `next start` itself. */
  nextStart(): Promise<Server> | null {
    if (oursIsNextStart()) return null;
    this.nextStartServer ??= startNextStart(this.dbEnv);
    return this.nextStartServer;
  }

  baseline(): Promise<Server> {
    this.baselineServer ??= startBaseline(this.dbEnv);
    return this.baselineServer;
  }

  /** The bare server running the app's own increase statement (bench/baseline-server.ts, BASELINE_INCREASE=app). */
  baselineSameStatement(): Promise<Server> {
    this.sameStatementServer ??= startBaseline(
      { ...this.dbEnv, BASELINE_INCREASE: "app" },
      undefined,
      "bare node:http + pg, the app's statement",
    );
    return this.sameStatementServer;
  }

  /** Another instance of the production server (stop it when done). */
  another(workers: number | undefined, env: Record<string, string> = {}, node?: string, label?: string) {
    return startOurs({ workers, env: { ...this.dbEnv, ...env }, node, label });
  }

  /** Stops every server of the context (before the in-process dashboard timings, which want the cores). */
  async stopServers() {
    for (const server of [this.nextStartServer, this.baselineServer, this.sameStatementServer])
      if (server) await (await server).child.stop();
    await this.ours.child.stop();
  }

  add(row: Row): Row {
    this.results.rows.push(row);
    return row;
  }

  row(family: RowId, name: string) {
    return this.results.rows.find((r) => r.family === family && r.name === name);
  }
}

/** No transport errors, and no unexpected status (`expectNon2xx`: the row's requests are meant to fail, e.g. 401). */
export const clean = (f: Figures, expectNon2xx = false) =>
  f.requests > 0 && f.errors === 0 && (expectNon2xx || f.non2xx === 0);
