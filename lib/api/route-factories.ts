import "server-only";
import { hotDb } from "@/lib/db/client";
import type { HotDb, RawQueries, Tx } from "@/lib/db/types";
import { retryRead, transactionWithRetry } from "@/lib/db/outage";
import type { AppError } from "@/lib/errors";
import { normaliseEmail } from "@/lib/domain/customers";
import { resolveCustomerId } from "@/lib/domain/customer-lookup";
import { byApiKey, byCustomerToken, type Authenticate, type Authenticated, type Caller } from "./authenticate";
import { onProgramClock } from "@/lib/domain/clock";
import {
  PARSE_PARAMS,
  parseWith,
  replyText,
  urlInputs,
  replyToResponse,
  requestUrl,
  TX_OPTIONS,
  withEdge,
  type ApiReply,
  type Edge,
  type SchemaLike,
} from "./edge";
import { IDEMPOTENT_REPLAYED } from "@/lib/header-names";
import type { Outcome, OutcomeSlot } from "@/lib/db/keyed-statement";
import { idempotencyKeyOf, outcomeSlot, runIdempotently } from "./idempotency";
import { readJsonBody } from "./json-body";
import { applyCors } from "./cors";

/**
 * The one place where a /v1 route is assembled from its declaration (API.md §1): who may call it (api-key or
 * customer token), the customer it acts on, its path parameters, query and body schemas, then one call of `run`,
 * outside any transaction for a read and inside one for a write (with Idempotency-Key on POST). Route files only
 * declare these and call the domain. The steps run in this order, which decides which error a request with
 * several faults gets: the text rule on the URL's path parameters and query values (./edge.ts `urlInputs`), caller,
 * query or body, Idempotency-Key, customer, path parameters, `run`.
 */

export interface ApiRequest<B = undefined, Q = undefined, C extends string | null = string | null> {
  requestId: string;
  caller: Caller;
  programId: string;
  /** A test program's clock, the business time `run` acts at (lib/domain/clock.ts); null: live, real time. */
  clockAt: Date | null;
  /** The path's segments, the declared ones (`params`) as their schema returned them. */
  params: Record<string, string>;
  url: URL;
  body: B;
  query: Q;
  /** The Idempotency-Key of a POST, recorded on the ledger entries it writes. */
  idempotencyKey: string | null;
  /** The customer the request acts on: stored with the idempotent outcome, for erasure. Set on customer routes. */
  customerId: C;
}

/** A request on a customer route: the `{email}` path segment's customer, or the /me token's. */
export type CustomerRequest<B = undefined, Q = undefined> = ApiRequest<B, Q, string>;

/** A path segment's declared shape, and the error for a segment that does not fit it (a 404: nothing has that id). */
export interface PathParam {
  schema: SchemaLike<string>;
  /** Given the segment as sent. */
  orElse: (segment: string) => AppError;
}

interface Inputs<Q> {
  params?: Record<string, PathParam>;
  /** The query string, as a plain object of its last values; a mismatch is 400 `validation_failed` by path. */
  query?: SchemaLike<Q>;
}

export interface ReadOptions<Q, C extends string | null> extends Inputs<Q> {
  /** `database`: Prisma for model queries, `raw` for raw statements (on PostgreSQL straight on the pool). */
  run: (req: ApiRequest<undefined, NoInfer<Q>, C>, database: HotDb) => Promise<ApiReply>;
}

export interface WriteOptions<B, Q = undefined, C extends string | null = string | null> extends Inputs<Q> {
  /** A zod schema, or a function that validates (throwing AppError) and returns the body. */
  body?: SchemaLike<B> | ((input: unknown) => B);
  /**
   * The body may be left out (OpenAPI `requestBody.required: false`): a request without content, however it says so
   * (no body, `Content-Length: 0`, an empty body under `Content-Type: application/json`), is validated as `{}`.
   */
  bodyOptional?: boolean;
  run: (req: ApiRequest<NoInfer<B>, NoInfer<Q>, C>, tx: Tx) => Promise<ApiReply>;
  /**
   * The hot path of a write that can act in ONE statement outside any interactive transaction: it stores the
   * Idempotency-Key's outcome (`slot`, null without a key) in that same statement and replays or conflicts as `run`
   * would (lib/api/one-statement.ts; lib/db/keyed-statement.ts). It answers exactly as `run` does, or returns
   * null when this request needs `run` after all (a rare case that the statement reports instead of handling: a
   * concurrent write overtook it, points due to expire, a tier period to close), which then runs as usual.
   */
  statement?: (
    req: ApiRequest<NoInfer<B>, NoInfer<Q>, C>,
    database: HotDb,
    slot: OutcomeSlot | null,
  ) => Promise<Outcome | null>;
  /**
   * The statement finds the `{email}` customer itself (from `params.email`), so the factory does not look them up
   * first: one round trip less. It must do nothing when there is no such customer, and return null, so that `run`'s
   * lookup answers 404 as usual. Only for a route whose one path parameter is `{email}`; `req.customerId` is then
   * unset in `statement`.
   */
  statementFindsCustomer?: boolean;
  /**
   * A request that must store nothing, not even its Idempotency-Key's outcome (a dry run): its key is ignored, so a
   * later real request with the same key acts.
   */
  storesNothing?: (req: ApiRequest<NoInfer<B>, NoInfer<Q>, C>) => boolean;
}

type RouteContext = { params: Promise<Record<string, string>> };
type RouteHandler = (req: Request, ctx: RouteContext) => Promise<Response>;

/** Who may call a kind of route, and how it finds the customer it acts on (if it acts on one). */
interface Scope {
  authenticate: Authenticate;
  /** The /me routes answer CORS for the program's allowed origins (./cors.ts); the api-key routes never do. */
  cors?: boolean;
  customer?: (req: ApiRequest<unknown, unknown>, database: RawQueries) => Promise<void>;
}

/**
 * The customer named by the `{email}` path segment (404 `customer_not_found` when absent). It becomes the
 * request's customer, so a stored idempotent outcome is filed under it and erased with it.
 */
async function customerByEmail(req: ApiRequest<unknown, unknown>, database: RawQueries) {
  req.customerId = await resolveCustomerId(database, req.programId, normaliseEmail(req.params.email ?? ""));
}

const INTEGRATOR: Scope = { authenticate: byApiKey };
const INTEGRATOR_CUSTOMER: Scope = { authenticate: byApiKey, customer: customerByEmail };
/** The token's customer is the caller's: authentication already set it. */
const TOKEN_CUSTOMER: Scope = { authenticate: byCustomerToken, cors: true };

/** An integrator read (api-key). A read that declares nothing but `run` may be given as that function alone. */
export const apiRead = <Q = undefined>(options: ReadOptions<Q, string | null> | ReadOptions<Q, string | null>["run"]) =>
  readRoute(INTEGRATOR, options);
/** An integrator read about the customer of the `{email}` segment. */
export const customerRead = <Q = undefined>(options: ReadOptions<Q, string> | ReadOptions<Q, string>["run"]) =>
  readRoute(INTEGRATOR_CUSTOMER, options);
/** A read by the customer of a token (/me). */
export const meRead = <Q = undefined>(options: ReadOptions<Q, string> | ReadOptions<Q, string>["run"]) =>
  readRoute(TOKEN_CUSTOMER, options);

/**
 * The customer whose e-mail the query or body names rather than the path (the JeriCommerce aliases, API.md §3):
 * found after the query and body are validated, as `{email}`'s customer is, and 404 `customer_not_found` alike.
 */
const namedCustomer = (email: (req: ApiRequest<unknown, unknown>) => string): Scope => ({
  authenticate: byApiKey,
  customer: async (req, database) => {
    req.customerId = await resolveCustomerId(database, req.programId, normaliseEmail(email(req)));
  },
});
/** An integrator read about the customer whose e-mail `email` takes from the validated query. */
export const customerReadNamed = <Q>(email: (query: Q) => string, options: ReadOptions<Q, string>) =>
  readRoute(
    namedCustomer((req) => email(req.query as Q)),
    options,
  );
/** An integrator write on the customer whose e-mail `email` takes from the validated body. */
export const customerWriteNamed = <B, Q = undefined>(email: (body: B) => string, options: WriteOptions<B, Q, string>) =>
  writeRoute(
    namedCustomer((req) => email(req.body as B)),
    options,
  );

/** An integrator write (api-key). */
export const apiWrite = <B, Q = undefined>(options: WriteOptions<B, Q>) => writeRoute(INTEGRATOR, options);
/** An integrator write on the customer of the `{email}` segment. */
export const customerWrite = <B, Q = undefined>(options: WriteOptions<B, Q, string>) =>
  writeRoute(INTEGRATOR_CUSTOMER, options);
/** A write by the customer of a token (/me). */
export const meWrite = <B, Q = undefined>(options: WriteOptions<B, Q, string>) => writeRoute(TOKEN_CUSTOMER, options);

/** A read: authenticated, outside any transaction. */
function readRoute<Q, C extends string | null>(
  scope: Scope,
  declared: ReadOptions<Q, C> | ReadOptions<Q, C>["run"],
): RouteHandler {
  const options = typeof declared === "function" ? { run: declared } : declared;
  return (req, ctx) =>
    withEdge(req, async (edge) => {
      const params = await urlInputs(req, ctx);
      const database = await hotDb();
      if (scope.cors) await applyCors(req, params, edge, database.raw);
      // Reads change nothing: a lost connection is retried once, authentication included (lib/db/outage.ts).
      const reply = await retryRead(async () => {
        const apiReq = newRequest<undefined, Q, C>(
          req,
          edge,
          await scope.authenticate(req, params, edge, database),
          params,
          undefined,
          options,
        );
        await resolvePath(scope, options, apiReq, database.raw);
        return onProgramClock(apiReq.programId, apiReq.clockAt, () => options.run(apiReq, database));
      });
      return replyToResponse(reply, edge);
    });
}

/**
 * A write: the body is parsed and validated before anything is touched, then `statement` (when the route has one)
 * acts in one statement, or `run` executes in one transaction. On POST an Idempotency-Key makes a retry replay the
 * stored outcome instead of acting twice.
 */
function writeRoute<B, Q, C extends string | null>(scope: Scope, options: WriteOptions<B, Q, C>): RouteHandler {
  return (req, ctx) =>
    withEdge(req, async (edge) => {
      const params = await urlInputs(req, ctx);
      const database = await hotDb();
      if (scope.cors) await applyCors(req, params, edge, database.raw);
      const authenticated = await retryRead(() => scope.authenticate(req, params, edge, database));
      const parsed = options.body
        ? await readJsonBody(req, options.bodyOptional ? { value: {} } : undefined)
        : { raw: "", value: undefined };
      const parse = typeof options.body === "function" ? options.body : options.body && parseWith(options.body);
      const apiReq = newRequest<B, Q, C>(
        req,
        edge,
        authenticated,
        params,
        parse ? parse(parsed.value) : (undefined as B),
        options,
      );
      const key = options.storesNothing?.(apiReq) ? null : apiReq.idempotencyKey;
      const keyed = key && {
        programId: apiReq.programId,
        scopeId: apiReq.caller.scopeId,
        key,
        method: req.method,
        path: apiReq.url.pathname,
        body: parsed,
      };
      if (options.statement) {
        const findsCustomer = options.statementFindsCustomer && scope === INTEGRATOR_CUSTOMER && !options.params;
        if (!findsCustomer) await retryRead(() => resolvePath(scope, options, apiReq, database.raw));
        const statement = options.statement;
        const done = await onProgramClock(apiReq.programId, apiReq.clockAt, () =>
          statement(apiReq, database, keyed ? outcomeSlot(keyed) : null),
        );
        if (done) {
          if (done.replayed) edge.headers.set(IDEMPOTENT_REPLAYED, "true");
          return replyToResponse({ status: done.status, rawJson: done.body ?? undefined }, edge);
        }
      }
      const act = async (tx: Tx) => {
        await resolvePath(scope, options, apiReq, tx);
        return onProgramClock(apiReq.programId, apiReq.clockAt, () => options.run(apiReq, tx));
      };
      if (!keyed) return replyToResponse(await transactionWithRetry(database.prisma, act, TX_OPTIONS), edge);
      const outcome = await runIdempotently(database.prisma, keyed, async (tx) => {
        const reply = await act(tx);
        return { status: reply.status, body: replyText(reply), customerId: apiReq.customerId };
      });
      if (outcome.replayed) edge.headers.set(IDEMPOTENT_REPLAYED, "true");
      return replyToResponse({ status: outcome.status, rawJson: outcome.body ?? undefined }, edge);
    });
}

/** The request as `run` sees it: the query parsed, and (on a POST) the Idempotency-Key checked. */
function newRequest<B, Q, C extends string | null>(
  req: Request,
  edge: Edge,
  { caller, programId, clockAt }: Authenticated,
  params: Record<string, string>,
  body: B,
  options: Inputs<Q>,
): ApiRequest<B, Q, C> {
  const url = requestUrl(req);
  const query = options.query
    ? parseWith(options.query)(Object.fromEntries(url.searchParams.entries()))
    : (undefined as Q);
  const idempotencyKey = idempotencyKeyOf(req);
  return {
    requestId: edge.requestId,
    caller,
    programId,
    clockAt,
    params: { ...params },
    url,
    body,
    query,
    idempotencyKey,
    customerId: caller.customerId as C,
  };
}

/** The customer first, then the declared path parameters: an unknown customer outranks a malformed reward id. */
async function resolvePath(
  scope: Scope,
  options: Inputs<unknown>,
  apiReq: ApiRequest<unknown, unknown, string | null>,
  database: RawQueries,
) {
  if (scope.customer) await scope.customer(apiReq, database);
  for (const [name, param] of Object.entries(options.params ?? {})) {
    const result = param.schema.safeParse(apiReq.params[name] ?? "", PARSE_PARAMS);
    if (!result.success) throw param.orElse(apiReq.params[name] ?? "");
    apiReq.params[name] = result.data;
  }
}
