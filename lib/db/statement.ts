import "server-only";

/**
 * Helpers for the one-statement writes (data-modifying CTEs, lib/domain/ledger.ts): named placeholders for long
 * statements, and the one way such a statement gives up when it finds that a concurrent write overtook it.
 */

/** `$n` placeholders by name, numbered from `first`: `sql` writes them, `values` orders the arguments. */
export function namedParams<N extends string>(names: readonly N[], first = 1) {
  const sql = Object.fromEntries(names.map((n, i) => [n, `$${first + i}`])) as Record<N, string>;
  return { sql, values: (args: Record<N, unknown>) => names.map((n) => args[n]) };
}

const RACE_MARKER = "loyalty: a concurrent write overtook this statement";

/**
 * An SQL expression that is 0 when `ok` holds and otherwise fails the whole statement (so none of its CTEs
 * commit). The failing cast is evaluated at run time only (clock_timestamp() is volatile: the planner cannot fold
 * it); `isLostRace` recognises the error, and the caller takes its locked path.
 */
export const abortUnless = (ok: string) =>
  `(CASE WHEN ${ok} THEN 0 ELSE ('${RACE_MARKER} at ' || clock_timestamp())::int END)`;

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
