/**
 * The typed /v1 client: openapi-fetch over the types generated from the OpenAPI document (sdk/generated/), with what
 * an integration needs around it, in one place:
 *
 *  - `createLoyaltyClient({ baseUrl, apiKey })` for the integrator routes (api-key), `createCustomerClient({ baseUrl,
 *    customerToken })` for the `/me` routes of a front-end widget (a customer token from getCustomerToken);
 *  - `GET`/`POST`/`DELETE` take the document's path templates, with typed params and bodies, and resolve to the
 *    answer's typed body, or throw a LoyaltyApiError (./errors.ts); `raw` is the plain openapi-fetch client
 *    (`{ data, error, response }`, nothing thrown) on the same transport, for the answer's headers;
 *  - an Idempotency-Key made for every POST that does not carry one, kept across that call's retries (./retry.ts);
 *  - `transactions(…)`: an async iterator over a customer's ledger, page after page.
 *
 * Browser- and edge-safe: fetch and crypto.randomUUID, nothing from Node (checked by sdk/tsconfig.json).
 *
 *   const loyalty = createLoyaltyClient({ baseUrl: "https://loyalty.example.com", apiKey });
 *   const customer = await loyalty.GET("/v1/programs/{programId}/customers/{email}", {
 *     params: { path: { programId, email: "jane.doe@example.com" } },
 *   });
 */
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from "openapi-fetch";
import type { components, paths } from "./generated/openapi.js";
import { apiErrorFrom, operationOf } from "./errors.js";
import { retryingFetch, type FetchLike, type RetryOptions } from "./retry.js";

type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
type Media = `${string}/${string}`;

/** The routes a customer token opens (`/me`), and those an api-key opens (all the others). */
export type CustomerPaths = Pick<paths, Extract<keyof paths, `${string}/me` | `${string}/me/${string}`>>;
export type IntegratorPaths = Omit<paths, keyof CustomerPaths>;

export type Transaction = components["schemas"]["Transaction"];
export type Schemas = components["schemas"];

/** Path templates of `P` that serve `M`. */
type PathsWith<P, M extends HttpMethod> = {
  [K in keyof P]: P[K] extends { [X in M]: infer O } ? ([O] extends [undefined | never] ? never : K) : never;
}[keyof P];
type RequiredKeysOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** The second argument: optional when nothing in it is required (as in openapi-fetch). */
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
/** The success body of the call; undefined for an answer without one (201/204 "no body"). */
type Data<Op extends Record<string | number, unknown>, Init> = Extract<
  FetchResponse<Op, Init, Media>,
  { data: unknown }
>["data"] extends infer D
  ? [D] extends [never]
    ? undefined
    : D
  : never;

/** A method that resolves to the success body, or throws LoyaltyApiError. */
export type CallMethod<P extends Record<string, Record<HttpMethod, unknown>>, M extends HttpMethod> = <
  Path extends PathsWith<P, M> & string,
  Init extends MaybeOptionalInit<P[Path], M>,
>(
  path: Path,
  ...init: InitParam<Init>
) => Promise<Data<P[Path][M] & Record<string | number, unknown>, Init>>;

export interface BaseOptions extends RetryOptions {
  /** The service's origin, e.g. `https://loyalty.example.com` (the paths start with /v1). */
  baseUrl: string;
  /** The fetch to send with (default: the global one). Retries wrap it. */
  fetch?: FetchLike;
  /** Headers sent with every request (e.g. a User-Agent naming your integration). */
  headers?: Record<string, string>;
}

export interface LoyaltyClientOptions extends BaseOptions {
  /** The program's API key (dashboard: API keys), sent as the `api-key` header. Keep it on your server. */
  apiKey: string;
}

export interface CustomerClientOptions extends BaseOptions {
  /** A customer token (getCustomerToken, valid one hour), or a function that returns a current one. */
  customerToken: string | (() => string | Promise<string>);
}

interface TypedClient<P extends object> {
  GET: CallMethod<P & Record<string, Record<HttpMethod, unknown>>, "get">;
  POST: CallMethod<P & Record<string, Record<HttpMethod, unknown>>, "post">;
  DELETE: CallMethod<P & Record<string, Record<HttpMethod, unknown>>, "delete">;
  /** openapi-fetch on the same transport (auth, Idempotency-Key, retries): `{ data, error, response }`, never throws for an answer. */
  raw: Client<P>;
}

export interface LoyaltyClient extends TypedClient<IntegratorPaths> {
  /**
   * Every ledger entry of the customer, newest first, fetching page after page (`limit` entries each, default the
   * server's) as the loop asks for them: `for await (const entry of loyalty.transactions(programId, email))`.
   */
  transactions(
    programId: string,
    email: string,
    options?: { limit?: number; signal?: AbortSignal },
  ): AsyncGenerator<Transaction, void, undefined>;
}

export interface CustomerClient extends TypedClient<CustomerPaths> {
  /** Every ledger entry of the token's customer, newest first, page after page. */
  transactions(
    programId: string,
    options?: { limit?: number; signal?: AbortSignal },
  ): AsyncGenerator<Transaction, void, undefined>;
}

/** Adds an Idempotency-Key to every POST that has none; the retries send the same request, hence the same key. */
const idempotencyKeys: Middleware = {
  onRequest({ request }) {
    if (request.method === "POST" && !request.headers.has("idempotency-key"))
      request.headers.set("Idempotency-Key", crypto.randomUUID());
    return request;
  },
};

function typedClient<P extends object>(options: BaseOptions, auth: Middleware): TypedClient<P> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const raw = createClient<P>({
    baseUrl: options.baseUrl,
    headers: options.headers ?? {},
    fetch: retryingFetch(send, options),
  });
  raw.use(auth, idempotencyKeys);
  const call =
    (method: "GET" | "POST" | "DELETE") =>
    async (path: string, init?: Record<string, unknown>): Promise<unknown> => {
      // The typed signatures are CallMethod's; here the path and init are the caller's, checked there.
      const request = raw.request as (m: string, p: string, i?: unknown) => Promise<FetchResponse<never, never, Media>>;
      let sent: Request | undefined;
      const capture: Middleware = {
        onRequest({ request }) {
          sent = request;
        },
      };
      const { data, error, response } = await request(method, path, {
        ...init,
        middleware: [...((init?.middleware as Middleware[] | undefined) ?? []), capture],
      });
      if (response.ok) return data;
      throw apiErrorFrom(response, error, {
        operation: operationOf(method, path),
        idempotencyKey: sent?.headers.get("idempotency-key") ?? undefined,
      });
    };
  return {
    GET: call("GET") as TypedClient<P>["GET"],
    POST: call("POST") as TypedClient<P>["POST"],
    DELETE: call("DELETE") as TypedClient<P>["DELETE"],
    raw,
  };
}

/** The query of one page: only the parameters that have a value. */
const pageQuery = (limit: number | undefined, cursor: string | undefined) => ({
  ...(limit === undefined ? {} : { limit }),
  ...(cursor === undefined ? {} : { cursor }),
});

/** Follows `nextCursor` from page to page, yielding each entry. */
async function* pages(
  page: (cursor: string | undefined) => Promise<{ data: Transaction[]; nextCursor: string | null }>,
): AsyncGenerator<Transaction, void, undefined> {
  let cursor: string | undefined;
  do {
    const { data, nextCursor } = await page(cursor);
    yield* data;
    cursor = nextCursor || undefined; // null (or an empty cursor) is the last page
  } while (cursor !== undefined);
}

/** A client for the integrator routes, authenticated with the program's API key. */
export function createLoyaltyClient(options: LoyaltyClientOptions): LoyaltyClient {
  const client = typedClient<IntegratorPaths>(options, {
    onRequest({ request }) {
      request.headers.set("api-key", options.apiKey);
      return request;
    },
  });
  return {
    ...client,
    transactions: (programId, email, { limit, signal } = {}) =>
      pages((cursor) =>
        client.GET("/v1/programs/{programId}/customers/{email}/transactions", {
          params: { path: { programId, email }, query: pageQuery(limit, cursor) },
          signal: signal ?? null,
        }),
      ),
  };
}

/** A client for the `/me` routes, authenticated with a customer token (for a front-end widget). */
export function createCustomerClient(options: CustomerClientOptions): CustomerClient {
  const { customerToken } = options;
  const client = typedClient<CustomerPaths>(options, {
    async onRequest({ request }) {
      const token = typeof customerToken === "function" ? await customerToken() : customerToken;
      request.headers.set("authorization", `Bearer ${token}`);
      return request;
    },
  });
  return {
    ...client,
    transactions: (programId, { limit, signal } = {}) =>
      pages((cursor) =>
        client.GET("/v1/programs/{programId}/me/transactions", {
          params: { path: { programId }, query: pageQuery(limit, cursor) },
          signal: signal ?? null,
        }),
      ),
  };
}
