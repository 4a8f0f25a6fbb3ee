import "server-only";
import type { z } from "zod";
import { AppError, serviceUnavailable } from "@/lib/errors";
import { isDatabaseUnavailable } from "@/lib/db/outage";
import { internalError, problemResponse, validationFailed, zodProblems } from "./problem";
import { requestIdFrom } from "./edge-guard";
import { CACHE_CONTROL, REQUEST_ID } from "@/lib/header-names";
import { errorFields, log, withRequestContext } from "@/lib/ops/logger";
import { recordRequest } from "@/lib/ops/metrics";
import { routeOf } from "./route-pattern";
import { FRONT_REQUESTS, RESPONSE_TEXTS } from "./front-channels";
import { isStorableText, textProblems } from "./text-rule";

/**
 * The one place for the edge that /v1 and the dashboard's JSON routes (lib/staff/http.ts) share: the request id
 * and no-store headers of every answer, the translation of a thrown error into problem+json (API.md §1), turning
 * a reply into a Response, and validation with a zod schema. The request body is read by ./json-body.ts.
 */

export interface ApiReply {
  status: number;
  /** Serialised with JSON.stringify. */
  json?: unknown;
  /** Already-serialised JSON (built by the database, or composed with ./json-compose.ts). */
  rawJson?: string;
}

export interface Edge {
  requestId: string;
  headers: Headers;
  /** The production front writes this answer from its text (./front-channels.ts): its Response needs no body. */
  bodyless: boolean;
}

/** Prisma's transaction limits for every write behind the edge (lib/db/adapter.ts sizes the pool's wait to match). */
export const TX_OPTIONS = { maxWait: 10_000, timeout: 60_000 };

/** Something that validates like a zod schema. */
export type SchemaLike<T> = {
  safeParse(input: unknown, params?: z.core.ParseContext<z.core.$ZodIssue>): z.ZodSafeParseResult<T>;
};

/**
 * How every input is parsed with its schema: a required field that is missing reads "required" (not zod's "expected
 * string, received undefined"), whatever its type; a schema's own message for a field still wins.
 */
export const PARSE_PARAMS: z.core.ParseContext<z.core.$ZodIssue> = {
  error: (issue) =>
    issue.input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_union")
      ? "required"
      : undefined,
};

/**
 * Parses with `schema` or throws a 400 `validation_failed` listing every problem by path: the text rule's
 * (./text-rule.ts, applied to every string of the input) and the schema's.
 */
export function parseWith<T>(schema: SchemaLike<T>) {
  return (input: unknown): T => {
    const text = textProblems(input);
    const result = schema.safeParse(input, PARSE_PARAMS);
    if (!result.success) throw validationFailed([...text, ...zodProblems(result.error)]);
    if (text.length > 0) throw validationFailed(text);
    return result.data;
  };
}

/**
 * The text rule on what a route reads from its URL, before anything else reads it: every path parameter (by its
 * name) and every query value (by its name). 400 `validation_failed` listing each offending one.
 */
export async function urlInputs(req: Request, ctx: { params: Promise<Record<string, string>> }) {
  const params = await ctx.params;
  const url = requestUrl(req);
  // The common case, checked without building the problem list: every name and value is storable text.
  if (storableEntries(Object.entries(params)) && (url.search === "" || storableEntries(url.searchParams)))
    return params;
  const problems = [
    ...textProblems(params),
    ...[...url.searchParams].flatMap(([name, value]) => textProblems({ [name]: value })),
  ];
  if (problems.length > 0) throw validationFailed(problems);
  return params;
}

const storableEntries = (entries: Iterable<[string, string]>) => {
  for (const [name, value] of entries) if (!isStorableText(name) || !isStorableText(value)) return false;
  return true;
};

const URLS = new WeakMap<Request, URL>();

/**
 * The request's URL, parsed once per request: the edge, the text rule and the route factories all read it (a parse
 * costs a few µs; `req.url` is a string built anew on each read). Nothing may change it.
 */
export function requestUrl(req: Request): URL {
  let url = URLS.get(req);
  if (!url) URLS.set(req, (url = new URL(req.url)));
  return url;
}

/** The JSON text of a reply, or null when it has no body. */
export const replyText = (reply: ApiReply): string | null =>
  reply.rawJson ?? (reply.json === undefined ? null : JSON.stringify(reply.json));

export function replyToResponse(reply: ApiReply, { headers, bodyless }: Pick<Edge, "headers" | "bodyless">): Response {
  const text = replyText(reply);
  if (text !== null) headers.set("content-type", "application/json");
  const body = reply.status === 204 ? null : text;
  const response = new Response(bodyless ? null : body, { status: reply.status, headers });
  if (body !== null) RESPONSE_TEXTS.set(response, body);
  return response;
}

export async function withEdge(req: Request, work: (edge: Edge) => Promise<Response>): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdFrom(req.headers.get(REQUEST_ID));
  const headers = new Headers({ [REQUEST_ID]: requestId, [CACHE_CONTROL]: "no-store" });
  const bodyless = FRONT_REQUESTS.has(req);
  const { pathname } = requestUrl(req);
  return withRequestContext({ requestId }, async () => {
    const res = await answer(req, work, requestId, headers, bodyless);
    // The one place every /v1 and dashboard JSON answer passes, under `next start` and the front alike.
    const ms = performance.now() - started;
    const { route, programId } = routeOf(pathname);
    recordRequest(req.method, route, res.status, ms / 1000);
    log().info({ method: req.method, route, status: res.status, ms: Math.round(ms * 10) / 10, programId }, "request");
    return res;
  });
}

async function answer(
  req: Request,
  work: (edge: Edge) => Promise<Response>,
  requestId: string,
  headers: Headers,
  bodyless: boolean,
): Promise<Response> {
  try {
    return await work({ requestId, headers, bodyless });
  } catch (err) {
    if (err instanceof AppError) return problemResponse(err, requestId, headers);
    if (isDatabaseUnavailable(err)) {
      // Not a bug: one line, no stack. The client retries after Retry-After (API.md §1).
      log().warn({ error: oneLine(err) }, "database unavailable");
      return problemResponse(serviceUnavailable(), requestId, headers);
    }
    // A bug: the stack goes to the log, the client gets a bare 500 `internal` with the request id.
    log().error({ url: req.url, ...errorFields(err) }, "unhandled error");
    return problemResponse(internalError(), requestId, headers);
  }
}

/** The last line of an error's message: Prisma's span several lines and end with the driver's own. */
function oneLine(err: unknown): string {
  const text = String((err as Error)?.message ?? err);
  return (
    text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? text
  );
}
