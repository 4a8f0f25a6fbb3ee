import "server-only";
import { raw, sql, type Sql } from "./sql";

/**
 * The one way a one-statement write (data-modifying CTEs, lib/domain/ledger.ts) gives up when it finds that a
 * concurrent write overtook it. (Its named placeholders are lib/db/sql.ts `params`.)
 */

const RACE_MARKER = "loyalty: a concurrent write overtook this statement";

/**
 * An SQL expression that is 0 when `ok` holds and otherwise fails the whole statement (so none of its CTEs
 * commit). The failing cast is evaluated at run time only (clock_timestamp() is volatile: the planner cannot fold
 * it); `isLostRace` recognises the error, and the caller takes its locked path.
 */
export const abortUnless = (ok: Sql) =>
  sql`(CASE WHEN ${ok} THEN 0 ELSE ('${raw(RACE_MARKER)} at ' || clock_timestamp())::int END)`;

/** Whether `err` (however wrapped) is the failure of `abortUnless`. */
export function isLostRace(err: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const e = current as Record<string, unknown>;
    if (typeof e.message === "string" && e.message.includes(RACE_MARKER)) return true;
    current = e.cause ?? (e.meta as Record<string, unknown> | undefined)?.driverAdapterError;
  }
  return false;
}
