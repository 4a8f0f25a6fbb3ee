import "server-only";
import type { Db, HotDb, RawQueries } from "@/lib/db/types";
import { apiKeyModeMismatch, invalidApiKey, invalidCustomerToken, notFound, rateLimited } from "@/lib/errors";
import { findActiveKey, TEST_KEY_PREFIX } from "@/lib/domain/api-keys";
import { readProgramClock } from "@/lib/domain/program-clock-read";
import { verifyCustomerToken } from "@/lib/domain/customer-tokens";
import { isUuid } from "@/lib/ids";
import type { Edge } from "./edge";
import {
  RATE_LIMIT,
  RATE_LIMIT_LIMIT,
  RATE_LIMIT_POLICY,
  RATE_LIMIT_REMAINING,
  RATE_LIMIT_RESET,
} from "@/lib/header-names";
import { takeTokenFrom } from "./rate-limit";

/**
 * The one place where a /v1 caller is identified (API.md §1): an integrator's api-key, for the program in the
 * path only, or a customer token on the /me routes; either way the caller's rate-limit bucket is charged here.
 * A customer token is never accepted on integrator routes (they read only the api-key header), and an api-key
 * never on /me.
 */

/** Who is calling: an integrator's API key, or a customer holding a token on the /me routes. */
export interface Caller {
  /** Recorded on ledger entries: `api_key:<id>` or `customer:<id>`. */
  actor: string;
  /** Idempotency keys are scoped to this id. */
  scopeId: string;
  /** The customer of a /me call, else null. */
  customerId: string | null;
}

export type Authenticate = (
  req: Request,
  params: Record<string, string>,
  edge: Edge,
  database: HotDb,
) => Promise<Authenticated>;

/**
 * Who is calling and for which program, with the program's test clock (lib/domain/clock.ts) when it is a test
 * program (null: live, real time). The route factories run the handler on that clock.
 */
export interface Authenticated {
  caller: Caller;
  programId: string;
  clockAt: Date | null;
}

/** Integrator routes: the `api-key` header, for the program in the path only. */
export const byApiKey: Authenticate = async (req, params, edge, database) => {
  const secret = req.headers.get("api-key");
  if (!secret) throw invalidApiKey();
  const apiKey = await findActiveKey(database.prisma, secret.trim());
  if (!apiKey) throw invalidApiKey();
  // A key's prefix says its program's mode; a key whose prefix disagrees with its own program acts nowhere.
  const keyIsTest = secret.trim().startsWith(TEST_KEY_PREFIX);
  if (keyIsTest !== apiKey.programTest) throw apiKeyModeMismatch(keyIsTest);
  // Ids are lower-case UUIDs; a UUID's meaning does not depend on case (RFC 9562), so the upper-case form is the same program.
  const pathProgram = params.programId?.toLowerCase();
  if (pathProgram !== apiKey.programId) {
    // A test key acts on its own test program only: it is refused as such on any other path, which says nothing of
    // that program. A live key on a test program's path is told so (its mode, read on this error path only);
    // another live program's path looks exactly like a program that does not exist.
    if (keyIsTest) throw apiKeyModeMismatch(true);
    if (pathProgram && isUuid(pathProgram) && (await isTestProgram(database.prisma, pathProgram)))
      throw apiKeyModeMismatch(false);
    throw notFound("program");
  }
  await applyRateLimit(edge, database.raw, apiKey.id, apiKey.rateLimitPerSec, apiKey.rateLimitBurst);
  return {
    caller: { actor: `api_key:${apiKey.id}`, scopeId: apiKey.id, customerId: null },
    programId: apiKey.programId,
    clockAt: apiKey.programTest ? await readProgramClock(database.prisma, apiKey.programId) : null,
  };
};

/** The /me routes: a customer token as `Authorization: Bearer`, never an api-key. */
export const byCustomerToken: Authenticate = async (req, params, edge, database) => {
  if (req.headers.get("api-key")) throw invalidCustomerToken();
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "");
  if (!match) throw invalidCustomerToken();
  // A UUID in any case names the same program; ids are stored lower-case.
  const programId = (params.programId ?? "").toLowerCase();
  if (!isUuid(programId)) throw notFound("program");
  const { customerId, clockAt } = await verifyCustomerToken(database.prisma, programId, match[1]!);
  await applyRateLimit(edge, database.raw, `customer:${customerId}`, 10, 30);
  return {
    caller: { actor: `customer:${customerId}`, scopeId: customerId, customerId },
    programId,
    // Read with the program's token key: no round trip of its own.
    clockAt,
  };
};

const isTestProgram = async (database: Db, programId: string) =>
  (await database.program.findUnique({ where: { id: programId }, select: { test: true } }))?.test === true;

/**
 * Takes a token from the caller's bucket and states the bucket in the headers of every answer, 429 included:
 * the IETF form (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` q = burst per w = seconds to refill it,
 * `RateLimit` r = tokens left, t = seconds until full) and the three legacy headers with the same numbers, so
 * Remaining never exceeds Limit.
 */
async function applyRateLimit(edge: Edge, database: RawQueries, bucketId: string, perSecond: number, burst: number) {
  const rate = await takeTokenFrom(database, bucketId, perSecond, burst);
  edge.headers.set(RATE_LIMIT_POLICY, `"default";q=${rate.limit};w=${rate.windowSeconds}`);
  edge.headers.set(RATE_LIMIT, `"default";r=${rate.remaining};t=${rate.resetSeconds}`);
  edge.headers.set(RATE_LIMIT_LIMIT, String(rate.limit));
  edge.headers.set(RATE_LIMIT_REMAINING, String(rate.remaining));
  edge.headers.set(RATE_LIMIT_RESET, String(rate.resetSeconds));
  if (!rate.allowed) throw rateLimited(rate.retryAfterSeconds);
}
