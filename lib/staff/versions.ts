import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { query, raw, sql, type Sql } from "@/lib/db/sql";
import { invalidInput, notFound, staleEdit } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import type { StaffContext } from "./authz";
import { auditDiff } from "./audit-words";

/**
 * No lost update on the staff side: every edit form carries the version of what it edits (the row's `updatedAt`,
 * sent as `If-Match`); the edit locks the row, and a version other than the row's is a 409 `stale_edit` that says
 * what was changed since (from the audit log) and changes nothing. Every staff edit moves the version on, by at
 * least a millisecond, so two edits never leave the same version behind.
 */

/** What a staff edit can change, by the audit log's entity type: its table and how one row of the program is found. */
const VERSIONED = {
  customer: { table: '"Customer"', what: "customer", key: "id" },
  tier: { table: '"Tier"', what: "tier", key: "id" },
  reward: { table: '"Reward"', what: "reward", key: "id" },
  coupon_pool: { table: '"CouponPool"', what: "coupon pool", key: "id" },
  earning_flow: { table: '"EarningFlow"', what: "earning flow", key: "id" },
  program: { table: '"Program"', what: "program's settings", key: "id" },
  webhook: { table: '"Webhook"', what: "webhook", key: "id" },
  api_key: { table: '"ApiKey"', what: "API key", key: "id" },
  segment: { table: '"Segment"', what: "segment", key: "id" },
  // A staff member's edits (role) are edits of their membership in this program.
  staff: { table: '"StaffMembership"', what: "staff member", key: '"staffId"' },
} as const;
export type Versioned = keyof typeof VERSIONED;

const VERSION = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The version a page hands its edit form: the row's `updatedAt` as ISO text. */
export const versionOf = (updatedAt: Date): string => updatedAt.toISOString();

/** The version of one row of the program as a page hands it to its edit form (the row must exist). */
export async function currentVersion(db: Db, kind: Versioned, programId: string, id: string): Promise<string> {
  const [row] = await query<{ updatedAt: Date }>(
    db,
    sql`SELECT "updatedAt" FROM ${raw(VERSIONED[kind].table)} WHERE ${rowOf(kind, programId, id)}`,
  );
  if (!row) throw notFound(VERSIONED[kind].what);
  return versionOf(row.updatedAt);
}

/** The If-Match header's version (quotes and a weak prefix allowed), or undefined when the request sent none. */
export function requestedVersion(headers: Headers): string | undefined {
  const value = headers.get("if-match");
  if (value === null) return undefined;
  const version = value
    .trim()
    .replace(/^W\//, "")
    .replace(/^"(.*)"$/, "$1");
  if (!VERSION.test(version) || !Number.isFinite(Date.parse(version)))
    throw invalidInput("If-Match must be the version the edit was made from.", [
      { path: "If-Match", message: "must be a version as the page gave it (an ISO timestamp)" },
    ]);
  return version;
}

/** The condition that picks the one row of the program. */
const rowOf = (kind: Versioned, programId: string, id: string): Sql =>
  kind === "program"
    ? sql`id = ${programId}::uuid`
    : sql`${raw(VERSIONED[kind].key)} = ${id}::uuid AND "programId" = ${programId}::uuid`;

/** Keys whose value differs between an audit row's before and after (the audit page's diff). */
const changedKeys = (before: unknown, after: unknown): string[] => auditDiff(before, after).map((c) => c.key);

/**
 * Locks the row and refuses the edit (409 `stale_edit`, nothing changed) when `expected` is not its version.
 * Without `expected` (a script, an older client) the edit is made as before. A row that is not there is left to
 * the operation's own 404.
 */
export async function requireVersion(
  tx: Tx,
  staff: StaffContext,
  kind: Versioned,
  id: string,
  expected: string | undefined,
): Promise<void> {
  if (expected === undefined || (kind !== "program" && !isUuid(id))) return;
  const [row] = await query<{ version: Date }>(
    tx,
    sql`SELECT "updatedAt" AS version FROM ${raw(VERSIONED[kind].table)}
        WHERE ${rowOf(kind, staff.programId, id)} FOR UPDATE`,
  );
  if (!row || versionOf(new Date(row.version)) === expected) return;
  const since = await query<{ by: string | null; action: string; before: unknown; after: unknown; at: Date }>(
    tx,
    sql`SELECT "staffEmail" AS by, action, before, after, "createdAt" AS at FROM "AuditLog"
        WHERE "programId" = ${staff.programId}::uuid AND "entityType" = ${kind} AND "entityId" = ${id}
          AND "createdAt" > ${expected}::timestamptz
        ORDER BY "createdAt" LIMIT 20`,
  );
  const changes = since.map((r) => {
    const keys = changedKeys(r.before, r.after);
    const what = keys.length > 0 ? keys.join(", ") : r.action;
    return `${what} changed by ${r.by ?? "someone"} at ${new Date(r.at).toISOString().slice(11, 16)} UTC`;
  });
  throw staleEdit(VERSIONED[kind].what, changes.length > 0 ? changes : ["changed outside the dashboard"]);
}

/** Moves the row's version on (at least 1 ms past the one it had) and returns the new one for the form. */
export async function nextVersion(tx: Tx, staff: StaffContext, kind: Versioned, id: string): Promise<string> {
  if (kind !== "program" && !isUuid(id)) return "";
  const [row] = await query<{ version: Date }>(
    tx,
    sql`UPDATE ${raw(VERSIONED[kind].table)}
        SET "updatedAt" = greatest(clock_timestamp(), "updatedAt" + interval '1 millisecond')
        WHERE ${rowOf(kind, staff.programId, id)} RETURNING "updatedAt" AS version`,
  );
  return row ? versionOf(new Date(row.version)) : "";
}

/** An edit of one versioned row: the version checked before `change`, moved on after it; returns both. */
export async function versionedEdit<R>(
  tx: Tx,
  staff: StaffContext,
  kind: Versioned,
  id: string,
  expected: string | undefined,
  change: () => Promise<R>,
): Promise<{ result: R; version: string }> {
  await requireVersion(tx, staff, kind, id, expected);
  const result = await change();
  return { result, version: await nextVersion(tx, staff, kind, id) };
}
