/**
 * The stack of the customers and concurrency tests: the built app (`next start`) already running on a fresh
 * database with the fixtures below, made with the admin CLI before it started (stack.ts does the rest).
 *
 *   for (const backend of BACKENDS) describe(`… [${backend}]`, () => {
 *     let app: TestServer;
 *     before(async () => (app = await startServer(backend)));
 *     after(() => app?.close());
 *     test("…", async () => { const res = await app.api("GET", `/v1/programs/${app.programId}/customers/x%40y.io`); });
 *   });
 */
import { cliString, openStack, type Api, type Backend, type FixtureSpec, type FixtureTools } from "./stack";

export { BACKENDS, type Api, type ApiOptions, type ApiResponse, type Backend } from "./stack";

/** Rate limit of every fixture key except `limitedKey` (requests per second), and its burst. */
export const HIGH_RATE_LIMIT = 100_000;
export const HIGH_RATE_BURST = 200_000;
/** `limitedKey` refills at 1 request per second and allows 10 at once (`apikey create --rate-limit 1 --burst 10`). */
export const LIMITED_RATE = 1;
export const LIMITED_BURST = 10;

export interface Fixtures {
  /** Program A: Bronze (0 points), Silver (1000), Gold (5000), created in the order Silver, Bronze, Gold. */
  programId: string;
  tiers: { bronze: string; silver: string; gold: string };
  /** Program A's key (high rate limit). */
  key: string;
  keyId: string;
  /** A second key of program A (high rate limit): idempotency keys are scoped per API key. */
  secondKey: string;
  /** Program A's key, revoked before the server started. */
  revokedKey: string;
  /** Program A's key with LIMITED_RATE requests/s and a burst of LIMITED_BURST. */
  limitedKey: string;
  limitedKeyId: string;
  /** Program B, with its own key and one tier. */
  otherProgramId: string;
  otherKey: string;
  otherTierId: string;
}

export interface TestServer extends Fixtures {
  backend: Backend;
  baseUrl: string;
  api: Api;
  /**
   * SQL on the test database, for checks the API cannot make (row counts). PostgreSQL: at any time. PGlite: only
   * after stop(), since the server holds the directory while it runs.
   */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** The server's stdout and stderr so far. */
  logs(): string;
  /** Stops the server (its whole process group). Idempotent. */
  stop(): Promise<void>;
  /** stop(), then deletes the database. Idempotent. */
  close(): Promise<void>;
}

async function createFixtures({ loyalty, together }: FixtureTools): Promise<Fixtures> {
  const program = async (name: string) => cliString((await loyalty("program", "create", "--name", name)).programId, "programId");
  const tier = async (programId: string, name: string, points: number, factor: number) =>
    cliString(
      (await loyalty("tier", "create", "--program", programId, "--name", name, "--required-points", String(points), "--factor", String(factor)))
        .tierId,
      "tierId",
    );
  const apiKey = async (programId: string, name: string, rate: number, burst: number) => {
    const k = await loyalty("apikey", "create", "--program", programId, "--name", name, "--rate-limit", String(rate), "--burst", String(burst));
    return { id: cliString(k.id, "key id"), key: cliString(k.key, "key") };
  };
  const [programId, otherProgramId] = await together(
    () => program("Program A"),
    () => program("Program B"),
  );
  const [tiers, main, second, revoked, limited, otherTierId, other] = await together(
    // One after the other and not in requiredPoints order, so "the base tier" must mean the lowest requiredPoints,
    // not the first row created.
    async () => {
      const silver = await tier(programId, "Silver", 1000, 1.25);
      const bronze = await tier(programId, "Bronze", 0, 1);
      const gold = await tier(programId, "Gold", 5000, 1.5);
      return { bronze, silver, gold };
    },
    () => apiKey(programId, "main", HIGH_RATE_LIMIT, HIGH_RATE_BURST),
    () => apiKey(programId, "second", HIGH_RATE_LIMIT, HIGH_RATE_BURST),
    () => apiKey(programId, "revoked", HIGH_RATE_LIMIT, HIGH_RATE_BURST),
    () => apiKey(programId, "limited", LIMITED_RATE, LIMITED_BURST),
    () => tier(otherProgramId, "Member", 0, 1),
    () => apiKey(otherProgramId, "other", HIGH_RATE_LIMIT, HIGH_RATE_BURST),
  );
  const revocation = await loyalty("apikey", "revoke", "--id", revoked.id);
  if (!revocation.revokedAt) throw new Error(`apikey revoke did not revoke: ${JSON.stringify(revocation)}`);
  return {
    programId,
    tiers,
    key: main.key,
    keyId: main.id,
    secondKey: second.key,
    revokedKey: revoked.key,
    limitedKey: limited.key,
    limitedKeyId: limited.id,
    otherProgramId,
    otherKey: other.key,
    otherTierId,
  };
}

const SERVER: FixtureSpec<Fixtures> = { name: "server", dependsOn: ["test/support/server.ts"], make: createFixtures };

/** A fresh database with the fixtures, and `next start` on it, answering. */
export async function startServer(backend: Backend, extraEnv: Record<string, string> = {}): Promise<TestServer> {
  const stack = await openStack(backend, SERVER);
  try {
    const app = await stack.start(extraEnv);
    const { cliRun: _cliRun, loyalty: _loyalty, together: _together, start: _start, stopAll, query, close, env: _env, ...fixtures } = stack;
    return { ...fixtures, backend, baseUrl: app.baseUrl, api: app.api, query, logs: app.logs, stop: stopAll, close };
  } catch (err) {
    await stack.close().catch(() => {});
    throw err;
  }
}
