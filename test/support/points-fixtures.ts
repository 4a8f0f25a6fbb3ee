/**
 * The stack of the points tests: server.ts's kind of fixtures plus custom earning flows and points expiry, made with
 * the admin CLI before the app starts (stack.ts does the rest). One app at a time, which the test may stop to run
 * the CLI or SQL (PGlite) and start again on the same database.
 *
 *   const stack = await pointsStack(backend);   // migrated, fixtures made
 *   await stack.start();
 *   await stack.api("POST", `/v1/programs/${stack.programId}/customers/x%40y.io/balance/increase`, { body: { points: 5 } });
 *   await stack.close();
 */
import { cliString, openStack, type Api, type AppInstance, type Backend, type FixtureSpec } from "./stack";

export { BACKENDS, type Api, type ApiOptions, type ApiResponse, type Backend } from "./stack";

/** Program A's points expire this many months after they are earned. */
export const EXPIRY_MONTHS = 12;

/** Program A's tiers, lowest first: [name, requiredPoints, factor]. Created in another order (Silver, Gold, Bronze). */
export const TIER_SPECS = [
  ["Bronze", 0, 1],
  ["Silver", 1000, 1.25],
  ["Gold", 5000, 1.5],
] as const;

/** Program A's earning flows, as CLI flags. */
export const FLOW_SPECS = {
  /** Fixed points; runs may send the optional `store` (1 to 9999). */
  visit: ["--points", "10", "--name", "Store visit", "--params", "store?:1..9999"],
  /** 0.5 point per unit of `amount` (declared for it: 0 to 1,000,000,000, required), × the tier factor, rounded down. */
  purchase: ["--points-per-unit", "0.5", "--param", "amount"],
  /** 2 points per unit of `amount` (1 to 500), and the optional `items` (1 to 50), declared explicitly. */
  receipt: ["--points-per-unit", "2", "--param", "amount", "--params", "amount:1..500,items?:1..50"],
  /** 10 points, at most 25 a UTC day. */
  daily: ["--points", "10", "--cap-per-day", "25"],
  /** 10 points, at most 15 in all. */
  limited: ["--points", "10", "--cap-total", "15"],
  /** 50 points, once per customer. */
  welcome: ["--points", "50", "--once"],
} as const;
export type FlowKey = keyof typeof FLOW_SPECS;

export interface PointsFixtures {
  programId: string;
  tiers: { bronze: string; silver: string; gold: string };
  /** Program A's main key and its id (ledger entries name it as actor `api_key:<id>`). */
  key: string;
  keyId: string;
  /** Another key of program A: idempotency keys are per API key. */
  secondKey: string;
  /** Program B: one tier, its own key, no points expiry and a `visit` flow worth 99. */
  otherProgramId: string;
  otherKey: string;
  otherTierId: string;
}

export interface PointsStack extends PointsFixtures {
  backend: Backend;
  /** The environment of the app and the CLI. */
  env: NodeJS.ProcessEnv;
  /** Runs the admin CLI; its JSON result. PGlite: only while the app is stopped. */
  loyalty(...args: string[]): Promise<Record<string, unknown>>;
  /** Starts the app (`next start`) and waits until it answers. */
  start(extraEnv?: Record<string, string>): Promise<void>;
  /** A JSON client with program A's key by default; only while the app runs. */
  api: Api;
  baseUrl(): string;
  /** SQL on the test database. PostgreSQL: at any time. PGlite: only while the app is stopped. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** The app's output so far. */
  logs(): string;
  stop(): Promise<void>;
  /** stop(), then deletes the database. Idempotent. */
  close(): Promise<void>;
}

const POINTS: FixtureSpec<PointsFixtures> = {
  name: "points",
  dependsOn: ["test/support/points-fixtures.ts", "lib/domain/earning-flows.ts", "lib/domain/api-keys.ts", "lib/domain/tiers.ts", "lib/domain/programs.ts"],
  async make({ loyalty, together }) {
    const program = async (name: string) => cliString((await loyalty("program", "create", "--name", name)).programId, "programId");
    const [programId, otherProgramId] = await together(
      () => program("Points A"),
      () => program("Points B"),
    );
    const tier = async (program: string, [name, points, factor]: readonly [string, number, number]) =>
      cliString((await loyalty("tier", "create", "--program", program, "--name", name, "--required-points", String(points), "--factor", String(factor))).tierId, "tierId");
    const key = async (program: string, name: string) => {
      const k = await loyalty("apikey", "create", "--program", program, "--name", name, "--rate-limit", "100000");
      return { id: cliString(k.id, "key id"), key: cliString(k.key, "key") };
    };
    const [silver, gold, bronze, main, second, otherTierId, other] = await together(
      () => tier(programId, TIER_SPECS[1]),
      () => tier(programId, TIER_SPECS[2]),
      () => tier(programId, TIER_SPECS[0]),
      () => key(programId, "main"),
      () => key(programId, "second"),
      () => tier(otherProgramId, ["Member", 0, 1]),
      () => key(otherProgramId, "other"),
    );
    await together(
      ...Object.entries(FLOW_SPECS).map(([k, flags]) => () => loyalty("earning-flow", "create", "--program", programId, "--key", k, ...flags)),
      () => loyalty("earning-flow", "create", "--program", otherProgramId, "--key", "visit", "--points", "99"),
      () => loyalty("program", "update", "--id", programId, "--points-expiry-months", String(EXPIRY_MONTHS)),
    );
    return { programId, tiers: { bronze, silver, gold }, key: main.key, keyId: main.id, secondKey: second.key, otherProgramId, otherKey: other.key, otherTierId };
  },
};

/** The points fixtures on a fresh database, with one app instance that start() and stop() control. */
export async function pointsStack(backend: Backend): Promise<PointsStack> {
  const stack = await openStack(backend, POINTS);
  let app: AppInstance | null = null;
  let output = "";
  const stop = async () => {
    if (!app) return;
    const running = app;
    app = null;
    await running.stop();
    output = running.logs();
  };
  return {
    backend,
    env: stack.env,
    programId: stack.programId,
    tiers: stack.tiers,
    key: stack.key,
    keyId: stack.keyId,
    secondKey: stack.secondKey,
    otherProgramId: stack.otherProgramId,
    otherKey: stack.otherKey,
    otherTierId: stack.otherTierId,
    loyalty: (...args) => stack.loyalty(...args),
    async start(extraEnv = {}) {
      if (app) throw new Error("the app is already running");
      app = await stack.start(extraEnv);
    },
    api: (method, pathname, options) => {
      if (!app) throw new Error("the app is not running");
      return app.api(method, pathname, options);
    },
    baseUrl: () => app?.baseUrl ?? "",
    query: (sql, params) => stack.query(sql, params),
    logs: () => app?.logs() ?? output,
    stop,
    async close() {
      await stop();
      await stack.close();
    },
  };
}

/** `/v1/programs/{programId}/customers/{email}` with the e-mail URL-encoded. */
export const customerPath = (programId: string, email: string) => `/v1/programs/${programId}/customers/${encodeURIComponent(email)}`;
