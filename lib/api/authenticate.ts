import "server-only";
import type { Db } from "@/lib/db/types";
import { invalidApiKey, invalidCustomerToken, notFound, rateLimited } from "@/lib/errors";
import { findActiveKey } from "@/lib/domain/api-keys";
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
  database: Db,
) => Promise<{ caller: Caller; programId: string }>;

/** Integrator routes: the `api-key` header, for the program in the path only. */
export const byApiKey: Authenticate = async (req, params, edge, database) => {
  const secret = req.headers.get("api-key");
  if (!secret) throw invalidApiKey();
  const apiKey = await findActiveKey(database, secret.trim());
  if (!apiKey) throw invalidApiKey();
  // Another program's path looks exactly like a program that does not exist.
  // Ids are lower-case UUIDs; a UUID's meaning does not depend on case (RFC 9562), so the upper-case form is the same program.
  if (params.programId?.toLowerCase() !== apiKey.programId) throw notFound("program");
  await applyRateLimit(edge, database, apiKey.id, apiKey.rateLimitPerSec, apiKey.rateLimitBurst);
  return {
    caller: { actor: `api_key:${apiKey.id}`, scopeId: apiKey.id, customerId: null },
    programId: apiKey.programId,
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
  const customerId = await verifyCustomerToken(database, programId, match[1]!);
  await applyRateLimit(edge, database, `customer:${customerId}`, 10, 30);
  return { caller: { actor: `customer:${customerId}`, scopeId: customerId, customerId }, programId };
};

/**
 * Takes a token from the caller's bucket and states the bucket in the headers of every answer, 429 included:
 * the IETF form (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` q = burst per w = seconds to refill it,
 * `RateLimit` r = tokens left, t = seconds until full) and the three legacy headers with the same numbers, so
 * Remaining never exceeds Limit.
 */
async function applyRateLimit(edge: Edge, database: Db, bucketId: string, perSecond: number, burst: number) {
  const rate = await takeTokenFrom(database, bucketId, perSecond, burst);
  edge.headers.set(RATE_LIMIT_POLICY, `"default";q=${rate.limit};w=${rate.windowSeconds}`);
  edge.headers.set(RATE_LIMIT, `"default";r=${rate.remaining};t=${rate.resetSeconds}`);
  edge.headers.set(RATE_LIMIT_LIMIT, String(rate.limit));
  edge.headers.set(RATE_LIMIT_REMAINING, String(rate.remaining));
  edge.headers.set(RATE_LIMIT_RESET, String(rate.resetSeconds));
  if (!rate.allowed) throw rateLimited(rate.retryAfterSeconds);
}
