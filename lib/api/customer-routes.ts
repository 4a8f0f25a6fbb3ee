import type { ApiRequest } from "./handler";
import { AppError } from "@/lib/errors";
import type { Db } from "@/lib/db/types";
import { normaliseEmail } from "@/lib/domain/customers";
import { resolveCustomerId } from "@/lib/domain/points";

/** The customer named by the `{email}` path segment of a customer-scoped route (404 when absent). */
export const customerOf = (req: ApiRequest<unknown>, db: Db) =>
  resolveCustomerId(db, req.programId, normaliseEmail(req.params.email ?? ""));

export const apiActor = (req: ApiRequest<unknown>) => req.caller.actor;

/** The query string as a plain object, for a zod schema to parse. */
export function queryOf(req: ApiRequest<unknown>) {
  return Object.fromEntries(req.url.searchParams.entries());
}

/** The `{rewardId}` path segment; a malformed id is simply an unknown reward. */
export function rewardIdOf(req: ApiRequest<unknown>): string {
  const id = req.params.rewardId ?? "";
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
    throw new AppError(404, "reward_not_found", "No such reward in this program.");
  }
  return id.toLowerCase();
}
