import "server-only";
import { AppError, invalidPath, methodNotAllowed, notFound } from "@/lib/errors";
import { problemJson } from "./problem";
import SECURITY_HEADERS from "@/lib/security-headers.json";
import { V1_ROUTES } from "./v1-routes.generated";

/**
 * The one place that decides, from the method and the raw path alone, whether a /v1 request can reach a route
 * at all (API.md §1: every /v1 answer is problem+json with a `code` and `x-request-id`, whatever the input).
 * Next answers the cases below itself, outside the contract, before any route code runs: a malformed
 * percent-encoding (500 text/plain), an unknown path (its HTML 404 page), a method the route module does not
 * export (a bare 405), and TRACE, which the fetch API cannot represent (500 and a stack trace).
 *
 * Pure functions of (method, path): lib/api/http-guard.ts applies them on the node:http server before Next runs
 * (Next 16's proxy.ts could see all but TRACE, but cost about a third of the floor's throughput: bench/README.md), and a front
 * server of our own can call them the same way. The route table is generated from app/v1's folders
 * (./v1-routes.generated.ts), so it cannot drift from the routes Next serves.
 */

/** The Allow header of a route: what it exports, HEAD wherever GET is (Next derives it), and OPTIONS. */
const allowOf = (methods: readonly string[]) =>
  [...new Set([...methods, ...(methods.includes("GET") ? ["HEAD"] : []), "OPTIONS"])].sort().join(", ");

/** One route of the table, ready to match: its segments (null for a parameter), in the table's order. */
export interface CompiledRoute {
  /** Its index in V1_ROUTES. */
  index: number;
  /** Each segment's literal text, or null for a parameter (any non-empty segment). */
  literals: readonly (string | null)[];
  allow: string;
  /** What the route serves, HEAD and OPTIONS included (the words of `allow`). */
  methods: ReadonlySet<string>;
  /** The route answers OPTIONS itself (the /me routes' CORS preflight, lib/api/cors.ts). */
  ownOptions: boolean;
}

/** The routes by their number of segments, each list in the table's order (the first match wins). */
const BY_LENGTH = new Map<number, CompiledRoute[]>();
V1_ROUTES.forEach(([pattern, methods], index) => {
  const literals = pattern.split("/").map((s) => (s.startsWith(":") ? null : s));
  const allow = allowOf(methods);
  const route = {
    index,
    literals,
    allow,
    methods: new Set(allow.split(", ")),
    ownOptions: (methods as readonly string[]).includes("OPTIONS"),
  };
  BY_LENGTH.set(literals.length, [...(BY_LENGTH.get(literals.length) ?? []), route]);
});

/**
 * The route of a /v1 path's segments (after `/v1/`, still percent-encoded), or null: the one matcher of the table,
 * for the edge guard and the metrics labels (./route-pattern.ts). It runs on every request, twice: plain loops over
 * the routes of that many segments.
 */
export function matchV1(segments: readonly string[]): CompiledRoute | null {
  const routes = BY_LENGTH.get(segments.length);
  if (!routes) return null;
  next: for (const route of routes) {
    for (let i = 0; i < segments.length; i++) {
      const literal = route.literals[i];
      if (literal === null ? segments[i] === "" : literal !== segments[i]) continue next;
    }
    return route;
  }
  return null;
}

/**
 * Whether every `%` of a path starts an escape of an ASCII character (`%00`–`%7F`): then every segment decodes. The
 * common case (`%40` in an e-mail) without a `decodeURIComponent` per segment.
 */
const ASCII_ESCAPES_ONLY = /^(?:[^%]|%[0-7][0-9a-f])*$/i;

/** What the edge does with a request before any route runs. */
export type EdgeVerdict =
  /** Not for the guard: outside /v1, or a method the route serves. */
  | { kind: "pass" }
  | { kind: "refuse"; error: AppError }
  /** OPTIONS: 204 with Allow. */
  | { kind: "options"; allow: string };

const PASS: EdgeVerdict = { kind: "pass" };

export const isV1Path = (pathname: string) => pathname === "/v1" || pathname.startsWith("/v1/");

function wellEncoded(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a path outside /v1 (the dashboard, /api/staff, /api/auth, …) has a malformed percent-encoding (`%ZZ`) or
 * an encoded NUL:
 * Next would answer it with a bare text/plain 500 without the security headers, so the guard answers 400
 * `invalid_path` first, with them.
 */
export function malformedPath(pathname: string): boolean {
  // An encoded NUL (`%00`) is well-formed but names nothing here, and Next drops the connection on it.
  return pathname.includes("%") && (/%00/.test(pathname) || !pathname.split("/").every(wellEncoded));
}

/** The verdict for `method` on `pathname` (the path as sent, still percent-encoded, without the query). */
export function judgeV1(method: string, pathname: string): EdgeVerdict {
  if (!isV1Path(pathname)) return PASS;
  const segments = pathname.split("/").slice(2);
  // Only a path that has a `%` can be malformed: the common case costs one indexOf.
  if (pathname.includes("%") && !ASCII_ESCAPES_ONLY.test(pathname) && !segments.every(wellEncoded))
    return { kind: "refuse", error: invalidPath() };
  // Next answers a trailing slash with a 308 to the path without it, which is then judged here.
  if (pathname.endsWith("/")) return PASS;
  const route = matchV1(segments);
  if (!route) return { kind: "refuse", error: notFound("endpoint") };
  if (method === "OPTIONS") return route.ownOptions ? PASS : { kind: "options", allow: route.allow };
  if (!route.methods.has(method)) return { kind: "refuse", error: methodNotAllowed(route.allow) };
  return PASS;
}

/** The request id of an answer: the caller's `x-request-id` when it is a sane token, else a new UUID. */
export function requestIdFrom(incoming: string | null | undefined): string {
  return incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : crypto.randomUUID();
}

/** An answer as plain parts, for a web Response or a node:http ServerResponse alike. */
export interface EdgeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

/** The answer to a verdict other than "pass". */
export function edgeAnswer(verdict: Exclude<EdgeVerdict, { kind: "pass" }>, requestId: string): EdgeAnswer {
  // Answered before Next, so next.config.mjs's security headers are added here.
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS.everyAnswer,
    ...SECURITY_HEADERS.json,
    "x-request-id": requestId,
    "cache-control": "no-store",
  };
  if (verdict.kind === "options") return { status: 204, headers: { ...headers, allow: verdict.allow }, body: null };
  const { error } = verdict;
  for (const [k, v] of Object.entries(error.headers ?? {})) headers[k.toLowerCase()] = v;
  return {
    status: error.status,
    headers: { ...headers, "content-type": "application/problem+json" },
    body: problemJson(error, requestId),
  };
}
