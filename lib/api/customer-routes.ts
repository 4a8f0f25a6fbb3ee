import type { ApiRequest } from "./handler";
import { rewardNotFound } from "@/lib/errors";
import type { Db } from "@/lib/db/types";
import { normaliseEmail } from "@/lib/domain/customers";
import { resolveCustomerId } from "@/lib/domain/points";

/**
 * The customer named by the `{email}` path segment of a customer-scoped route (404 when absent). It becomes the
 * request's customer, so a stored idempotent outcome is filed under it and erased with it.
 */
export async function customerOf(req: ApiRequest<unknown>, db: Db): Promise<string> {
  const customerId = await resolveCustomerId(db, req.programId, normaliseEmail(req.params.email ?? ""));
  req.customerId = customerId;
  return customerId;
}

export const apiActor = (req: ApiRequest<unknown>) => req.caller.actor;

/** The query string as a plain object, for a zod schema to parse. */
export function queryOf(req: ApiRequest<unknown>) {
  return Object.fromEntries(req.url.searchParams.entries());
}

/** The `{rewardId}` path segment; a malformed id is simply an unknown reward. */
export function rewardIdOf(req: ApiRequest<unknown>): string {
  const id = req.params.rewardId ?? "";
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
    throw rewardNotFound();
  }
  return id.toLowerCase();
}
