import type { z } from "zod";
import { db } from "@/lib/db/client";
import type { Db, Tx } from "@/lib/db/types";
import { CommitUncertainError, isDatabaseUnavailable, retryRead, transactionWithRetry } from "@/lib/db/outage";
import { AppError, invalidApiKey, invalidJson, notFound, payloadTooLarge, rateLimited, serviceUnavailable, uniqueViolation, unsupportedMediaType } from "@/lib/errors";
import { findActiveKey } from "@/lib/domain/api-keys";
import { formatPath, internalError, problemResponse, validationFailed, zodProblems } from "./problem";
import { takeTokenFrom } from "./rate-limit";
import { findOutcome, legacyFingerprint, requestFingerprint, storeOutcome } from "./idempotency";
import { requestIdFrom } from "./edge-guard";

/**
 * The one place where the /v1 HTTP conventions (API.md §1) are applied: request ids, api-key auth and
 * program isolation, rate limits, content type and size limits, JSON parsing, validation, idempotency
 * and problem+json errors. Route files only name their schema and call the domain.
 */

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * How deeply a JSON body may nest (the root object or array is level 1). Our own schemas need 3; a deeper body
 * is refused before anything walks it recursively (zod, JSON.stringify, the database's jsonb), which would
 * otherwise overflow the stack on a 1 MB body of brackets and answer 500.
 */
export const MAX_JSON_DEPTH = 32;

/** Who is calling: an integrator's API key, or a customer holding a token on the /me routes. */
export interface Caller {
  /** Recorded on ledger entries: `api_key:<id>` or `customer:<id>`. */
  actor: string;
  /** Idempotency keys are scoped to this id. */
  scopeId: string;
  /** The customer of a /me call, else null. */
  customerId: string | null;
}

export interface ApiRequest<B> {
  requestId: string;
  caller: Caller;
  programId: string;
  params: Record<string, string>;
  url: URL;
  body: B;
  /** The Idempotency-Key of a POST, recorded on the ledger entries it writes. */
  idempotencyKey: string | null;
  /** The customer the request acts on, once known (customerOf sets it): stored with the idempotent outcome, for erasure. */
  customerId: string | null;
}

export interface ApiReply {
  status: number;
  /** Serialised with JSON.stringify. */
  json?: unknown;
  /** Already-serialised JSON (e.g. built by the database). */
  rawJson?: string;
}

type RouteContext = { params: Promise<Record<string, string>> };
type RouteHandler = (req: Request, ctx: RouteContext) => Promise<Response>;

/** Parses a validated body or throws a 400 listing every problem. */
export type SchemaLike<T> = { safeParse(input: unknown): z.ZodSafeParseResult<T> };

export function parseWith<T>(schema: SchemaLike<T>) {
  return (input: unknown): T => {
    const result = schema.safeParse(input);
    if (!result.success) throw validationFailed(zodProblems(result.error));
    return result.data;
  };
}

export interface Edge {
  requestId: string;
  headers: Headers;
}

export function replyToResponse(reply: ApiReply, headers: Headers): Response {
  const text = reply.rawJson ?? (reply.json === undefined ? null : JSON.stringify(reply.json));
  if (text !== null) headers.set("content-type", "application/json");
  return new Response(reply.status === 204 ? null : text, { status: reply.status, headers });
}

export async function withEdge(req: Request, work: (edge: Edge) => Promise<Response>): Promise<Response> {
  const requestId = requestIdFrom(req.headers.get("x-request-id"));
  const headers = new Headers({ "x-request-id": requestId, "cache-control": "no-store" });
  try {
    return await work({ requestId, headers });
  } catch (err) {
    if (err instanceof AppError) return problemResponse(err, requestId, headers);
    if (isDatabaseUnavailable(err)) {
      // Not a bug: one line, no stack. The client retries after Retry-After (API.md §1).
      console.error(JSON.stringify({ level: "warn", requestId, msg: "database unavailable", error: oneLine(err) }));
      return problemResponse(serviceUnavailable(), requestId, headers);
    }
    console.error(JSON.stringify({ level: "error", requestId, url: req.url, error: String((err as Error)?.stack ?? err) }));
    return problemResponse(internalError(), requestId, headers);
  }
}

/** The last line of an error's message: Prisma's span several lines and end with the driver's own. */
function oneLine(err: unknown): string {
  const text = String((err as Error)?.message ?? err);
  return text.split("\n").map((l) => l.trim()).filter(Boolean).at(-1) ?? text;
}

export type Authenticate = (req: Request, params: Record<string, string>, edge: Edge, database: Db) => Promise<{ caller: Caller; programId: string }>;

/**
 * Takes a token from the caller's bucket and states the bucket in the headers of every answer, 429 included:
 * the IETF form (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` q = burst per w = seconds to refill it,
 * `RateLimit` r = tokens left, t = seconds until full) and the three legacy headers with the same numbers, so
 * Remaining never exceeds Limit.
 */
export async function applyRateLimit(edge: Edge, database: Db, bucketId: string, perSecond: number, burst: number) {
  const rate = await takeTokenFrom(database, bucketId, perSecond, burst);
  edge.headers.set("RateLimit-Policy", `"default";q=${rate.limit};w=${rate.windowSeconds}`);
  edge.headers.set("RateLimit", `"default";r=${rate.remaining};t=${rate.resetSeconds}`);
  edge.headers.set("RateLimit-Limit", String(rate.limit));
  edge.headers.set("RateLimit-Remaining", String(rate.remaining));
  edge.headers.set("RateLimit-Reset", String(rate.resetSeconds));
  if (!rate.allowed) throw rateLimited(rate.retryAfterSeconds);
}

/** Integrator routes: the `api-key` header, for the program in the path only. */
const byApiKey: Authenticate = async (req, params, edge, database) => {
  const secret = req.headers.get("api-key");
  if (!secret) throw invalidApiKey();
  const apiKey = await findActiveKey(database, secret.trim());
  if (!apiKey) throw invalidApiKey();
  // Another program's path looks exactly like a program that does not exist.
  // Ids are lower-case UUIDs; a UUID's meaning does not depend on case (RFC 9562), so the upper-case form is the same program.
  if (params.programId?.toLowerCase() !== apiKey.programId) throw notFound("program");
  await applyRateLimit(edge, database, apiKey.id, apiKey.rateLimitPerSec, apiKey.rateLimitBurst);
  return { caller: { actor: `api_key:${apiKey.id}`, scopeId: apiKey.id, customerId: null }, programId: apiKey.programId };
};

export async function readJsonBody(req: Request, whenEmpty?: { value: unknown }): Promise<{ raw: string; value: unknown }> {
  const type = req.headers.get("content-type") ?? "";
  // A wholly optional body may be left out: no content type and nothing sent reads as `whenEmpty`.
  if (whenEmpty && !type) {
    const length = req.headers.get("content-length");
    if (length === null ? req.body === null : Number(length) === 0) return { raw: "", value: whenEmpty.value };
  }
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw unsupportedMediaType();
  }
  const declared = Number(req.headers.get("content-length") ?? 0);
  const tooLarge = () => payloadTooLarge(MAX_BODY_BYTES);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const bytes = new Uint8Array(await req.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
  const raw = new TextDecoder().decode(bytes);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalidJson();
  }
  const deep = pathBeyondDepth(value, MAX_JSON_DEPTH);
  if (deep) throw validationFailed([{ path: formatPath(deep), message: `must not be nested more than ${MAX_JSON_DEPTH} levels deep` }]);
  return { raw, value };
}

/** The path of the first object or array nested deeper than `maxDepth`, or null. Iterative: any depth is safe. */
export function pathBeyondDepth(value: unknown, maxDepth: number): (string | number)[] | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (path.length >= maxDepth) return path;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    // Pushed in reverse so the first member is visited first and the reported path is the first in document order.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      if (x !== null && typeof x === "object") stack.push({ value: x, path: [...path, k] });
    }
  }
  return null;
}

/** A read: authenticated, outside any transaction. */
export function readRoute(authenticate: Authenticate, run: (req: ApiRequest<undefined>, database: Db) => Promise<ApiReply>): RouteHandler {
  return (req, ctx) =>
    withEdge(req, async (edge) => {
      const params = await ctx.params;
      const database = await db();
      // Reads change nothing: a lost connection is retried once, authentication included (lib/db/outage.ts).
      const reply = await retryRead(async () => {
        const { caller, programId } = await authenticate(req, params, edge, database);
        return run(
          { requestId: edge.requestId, caller, programId, params, url: new URL(req.url), body: undefined, idempotencyKey: null, customerId: caller.customerId },
          database,
        );
      });
      return replyToResponse(reply, edge.headers);
    });
}

/** An integrator read (api-key). */
export const apiRead = (run: (req: ApiRequest<undefined>, database: Db) => Promise<ApiReply>) => readRoute(byApiKey, run);

export const TX_OPTIONS = { maxWait: 10_000, timeout: 60_000 };

/**
 * A write: the body is parsed and validated before anything is touched, then `run` executes in one
 * transaction. On POST an Idempotency-Key makes a retry replay the stored outcome instead of acting twice.
 */
export interface WriteOptions<B> {
  /** A zod schema, or a function that validates (throwing AppError) and returns the body. */
  body?: SchemaLike<B> | ((input: unknown) => B);
  /** The body may be omitted altogether (no content type, empty); it is then validated as `{}`. */
  bodyOptional?: boolean;
  run: (req: ApiRequest<NoInfer<B>>, tx: Tx) => Promise<ApiReply>;
}

/** An integrator write (api-key). */
export const apiWrite = <B>(options: WriteOptions<B>) => writeRoute(byApiKey, options);

export function writeRoute<B>(authenticate: Authenticate, options: WriteOptions<B>): RouteHandler {
  return (req, ctx) =>
    withEdge(req, async (edge) => {
      const params = await ctx.params;
      const database = await db();
      const { caller, programId } = await retryRead(() => authenticate(req, params, edge, database));
      const parsed = options.body ? await readJsonBody(req, options.bodyOptional ? { value: {} } : undefined) : { raw: "", value: undefined };
      const parse = typeof options.body === "function" ? options.body : options.body && parseWith(options.body);
      const body = parse ? parse(parsed.value) : (undefined as B);
      const url = new URL(req.url);
      const idemKey = req.method === "POST" ? req.headers.get("idempotency-key") : null;
      const apiReq: ApiRequest<B> = {
        requestId: edge.requestId,
        caller,
        programId,
        params,
        url,
        body,
        idempotencyKey: idemKey,
        customerId: caller.customerId,
      };

      if (idemKey === null) {
        const reply = await transactionWithRetry(database, (tx) => options.run(apiReq, tx), TX_OPTIONS);
        return replyToResponse(reply, edge.headers);
      }
      if (idemKey.length < 1 || idemKey.length > 255) {
        throw validationFailed([{ path: "Idempotency-Key", message: "must be 1 to 255 characters" }]);
      }
      const fingerprint = requestFingerprint(req.method, url.pathname, parsed.value);
      const replay = (stored: { status: number; body: string | null }) => {
        edge.headers.set("idempotent-replayed", "true");
        return replyToResponse({ status: stored.status, rawJson: stored.body ?? undefined }, edge.headers);
      };
      const legacy = () => legacyFingerprint(req.method, url.pathname, parsed.raw);
      const previous = await retryRead(() => findOutcome(database, caller.scopeId, idemKey, fingerprint, legacy));
      if (previous) return replay(previous);
      const attempt = () =>
        transactionWithRetry(database, async (tx) => {
          const result = await options.run(apiReq, tx);
          const text = result.rawJson ?? (result.json === undefined ? null : JSON.stringify(result.json));
          await storeOutcome(tx, caller.scopeId, idemKey, fingerprint, { status: result.status, body: text, customerId: apiReq.customerId });
          return { status: result.status, rawJson: text ?? undefined };
        }, TX_OPTIONS);
      try {
        const reply = await attempt().catch(async (err) => {
          if (!(err instanceof CommitUncertainError)) throw err;
          // The connection died during COMMIT. The outcome is stored in the same transaction, so its presence
          // says whether it committed: answer with it (this client never saw it), or run once more; a twin
          // still committing makes that attempt a unique violation, handled below.
          const stored = await retryRead(() => findOutcome(database, caller.scopeId, idemKey, fingerprint));
          return stored ? { status: stored.status, rawJson: stored.body ?? undefined } : attempt();
        });
        return replyToResponse(reply, edge.headers);
      } catch (err) {
        // A concurrent twin committed first: answer as it did.
        const clash = uniqueViolation(err);
        if (clash?.constraint?.includes("IdempotencyRecord")) {
          const winner = await retryRead(() => findOutcome(database, caller.scopeId, idemKey, fingerprint, legacy));
          if (winner) return replay(winner);
        }
        throw err;
      }
    });
}
