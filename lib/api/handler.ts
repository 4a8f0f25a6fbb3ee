import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { db } from "@/lib/db/client";
import type { Db, Tx } from "@/lib/db/types";
import { CommitUncertainError, isDatabaseUnavailable, retryRead, transactionWithRetry } from "@/lib/db/outage";
import { AppError, notFound, serviceUnavailable, uniqueViolation } from "@/lib/errors";
import { findActiveKey, invalidKey } from "@/lib/domain/api-keys";
import { internalError, problemResponse, validationFailed, zodProblems } from "./problem";
import { takeToken } from "./rate-limit";
import { findOutcome, requestFingerprint, storeOutcome } from "./idempotency";

/**
 * The one place where the /v1 HTTP conventions (API.md §1) are applied: request ids, api-key auth and
 * program isolation, rate limits, content type and size limits, JSON parsing, validation, idempotency
 * and problem+json errors. Route files only name their schema and call the domain.
 */

export const MAX_BODY_BYTES = 1024 * 1024;

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
  const incoming = req.headers.get("x-request-id");
  const requestId = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
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

export function applyRateLimit(edge: Edge, bucketId: string, perSecond: number, burst: number) {
  const rate = takeToken(bucketId, perSecond, burst);
  edge.headers.set("RateLimit-Limit", String(rate.limit));
  edge.headers.set("RateLimit-Remaining", String(rate.remaining));
  edge.headers.set("RateLimit-Reset", String(rate.resetSeconds));
  if (!rate.allowed) {
    throw new AppError(429, "rate_limited", "Too many requests; retry later.", undefined, {
      "Retry-After": String(rate.retryAfterSeconds),
    });
  }
}

/** Integrator routes: the `api-key` header, for the program in the path only. */
const byApiKey: Authenticate = async (req, params, edge, database) => {
  const secret = req.headers.get("api-key");
  if (!secret) throw invalidKey();
  const apiKey = await findActiveKey(database, secret.trim());
  if (!apiKey) throw invalidKey();
  // Another program's path looks exactly like a program that does not exist.
  if (params.programId !== apiKey.programId) throw notFound("program");
  applyRateLimit(edge, apiKey.id, apiKey.rateLimitPerSec, apiKey.rateLimitBurst);
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
    throw new AppError(415, "unsupported_media_type", "Send the body as application/json.");
  }
  const declared = Number(req.headers.get("content-length") ?? 0);
  const tooLarge = () => new AppError(413, "payload_too_large", `The body must be at most ${MAX_BODY_BYTES} bytes.`);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const bytes = new Uint8Array(await req.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
  const raw = new TextDecoder().decode(bytes);
  try {
    return { raw, value: JSON.parse(raw) };
  } catch {
    throw new AppError(400, "invalid_json", "The body is not valid JSON.");
  }
}

/** A read: authenticated, outside any transaction. */
/** A read: authenticated, outside any transaction. */
export function readRoute(authenticate: Authenticate, run: (req: ApiRequest<undefined>, database: Db) => Promise<ApiReply>): RouteHandler {
  return (req, ctx) =>
    withEdge(req, async (edge) => {
      const params = await ctx.params;
      const database = await db();
      // Reads change nothing: a lost connection is retried once, authentication included (lib/db/outage.ts).
      const reply = await retryRead(async () => {
        const { caller, programId } = await authenticate(req, params, edge, database);
        return run({ requestId: edge.requestId, caller, programId, params, url: new URL(req.url), body: undefined, idempotencyKey: null }, database);
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
      };

      if (idemKey === null) {
        const reply = await transactionWithRetry(database, (tx) => options.run(apiReq, tx), TX_OPTIONS);
        return replyToResponse(reply, edge.headers);
      }
      if (idemKey.length < 1 || idemKey.length > 255) {
        throw validationFailed([{ path: "Idempotency-Key", message: "must be 1 to 255 characters" }]);
      }
      const fingerprint = requestFingerprint(req.method, url.pathname, parsed.raw);
      const replay = (stored: { status: number; body: string | null }) => {
        edge.headers.set("idempotent-replayed", "true");
        return replyToResponse({ status: stored.status, rawJson: stored.body ?? undefined }, edge.headers);
      };
      const previous = await retryRead(() => findOutcome(database, caller.scopeId, idemKey, fingerprint));
      if (previous) return replay(previous);
      const attempt = () =>
        transactionWithRetry(database, async (tx) => {
          const result = await options.run(apiReq, tx);
          const text = result.rawJson ?? (result.json === undefined ? null : JSON.stringify(result.json));
          await storeOutcome(tx, caller.scopeId, idemKey, fingerprint, { status: result.status, body: text });
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
          const winner = await retryRead(() => findOutcome(database, caller.scopeId, idemKey, fingerprint));
          if (winner) return replay(winner);
        }
        throw err;
      }
    });
}
