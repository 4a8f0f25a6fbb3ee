import type { ApiRequest } from "./handler";
import type { Db } from "@/lib/db/types";
import { normaliseEmail } from "@/lib/domain/customers";
import { resolveCustomerId } from "@/lib/domain/points";

/** The customer named by the `{email}` path segment of a customer-scoped route (404 when absent). */
export const customerOf = (req: ApiRequest<unknown>, db: Db) =>
  resolveCustomerId(db, req.programId, normaliseEmail(req.params.email ?? ""));

export const apiActor = (req: ApiRequest<unknown>) => `api_key:${req.apiKey.id}`;

/** The query string as a plain object, for a zod schema to parse. */
export function queryOf(req: ApiRequest<unknown>) {
  return Object.fromEntries(req.url.searchParams.entries());
}
