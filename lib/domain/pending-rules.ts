/**
 * The pending-points rule (API.md §4 "Pending points"), pure and written once: whether an earn goes pending and
 * when it matures. Used by the ledger's locked path (ledger.ts `changeBalance`, which writes the pending points), by
 * its one-statement twin (the `pending_due` check of `changeCtes`, which only hands such an earn over) and by the
 * dashboard's settings text. No time is read here: `now` is the program clock's, passed down.
 *
 * - An earn may go pending only when its writer says so (`BalanceChange.pending`): the API's increase asks for the
 *   program's setting; a campaign or an earning flow may pass its own override (days or "until_confirmed"); the
 *   system's own earns (referral points, migrated balances, a pending earn maturing) never go pending.
 * - `pendingDays` 0 (the default): spendable at once. N > 0: matures N × 24 h after the earn. `until_confirmed`:
 *   matures only when its order is confirmed (`POST …/orders/{orderId}/confirm`).
 * - Tier points: counted when the points mature, unless the program's `pendingCountsForTier` (default false: a tier
 *   upgrade is given at once and only taken back at the period's close, so counting points that a return may still
 *   cancel would hand out tier benefits for returned goods, the gaming pending points exist to stop).
 */

/** What a writer asks of an earn: the program's setting, an override, or (undefined) never pending. */
export type PendingOption = "program" | "until_confirmed" | number;

export interface PendingSettings {
  pendingDays: number;
  pendingUntilConfirmed: boolean;
  pendingCountsForTier: boolean;
}

export interface PendingTerms {
  /** Null: until its order is confirmed. */
  maturesAt: Date | null;
  /** Tier points count at the earn (not again at maturity). */
  tierAtEarn: boolean;
}

export const DAY_MS = 86_400_000;

/**
 * A campaign's or an earning flow's override of the program's setting (API.md §4 "Pending points"): `pendingDays` N
 * (0: spendable at once) or `pending: "until_confirmed"`; neither: the program's setting. A campaign's is part of
 * its definition, so each version freezes its own.
 */
export interface PendingOverride {
  pendingDays?: number | null;
  pending?: "until_confirmed" | null;
}

/** The longest pending period, in days (the program's setting and the overrides). */
export const MAX_PENDING_DAYS = 365;

/** The problem of an override that says both (API.md §4): `pendingDays` or `pending`, not both; null when none. */
export const pendingOverrideProblem = (o: PendingOverride): { path: string; message: string } | null =>
  o.pending === "until_confirmed" && o.pendingDays != null
    ? { path: "pendingDays", message: 'give pendingDays or pending: "until_confirmed", not both' }
    : null;

/** What an earn of a campaign or an earning flow asks for: its override, or the program's setting. */
export const pendingOptionOf = (o: PendingOverride | null | undefined): PendingOption =>
  o?.pending === "until_confirmed" ? "until_confirmed" : o?.pendingDays != null ? o.pendingDays : "program";

/** An override in words (the campaign builder, the earning flows' page). */
export function describePendingOverride(o: PendingOverride | null | undefined): string {
  const option = pendingOptionOf(o);
  if (option === "program") return "as the program's setting";
  if (option === "until_confirmed") return "pending until the order is confirmed";
  return option === 0 ? "spendable at once" : `pending for ${option} day${option === 1 ? "" : "s"}`;
}

/** The statement's text parameter of an option (ledger.ts `changeCtes` `pending`). */
export const pendingParam = (option: PendingOption | null | undefined): string | null =>
  option == null ? null : String(option);

/** The terms of an earn at `now`, or null when its points are spendable at once. */
export function pendingTerms(
  option: PendingOption | null | undefined,
  program: PendingSettings,
  now: Date,
): PendingTerms | null {
  if (option == null) return null;
  const resolved: "until_confirmed" | number =
    option === "program" ? (program.pendingUntilConfirmed ? "until_confirmed" : program.pendingDays) : option;
  if (resolved === "until_confirmed") return { maturesAt: null, tierAtEarn: program.pendingCountsForTier };
  if (!(resolved > 0)) return null;
  return { maturesAt: new Date(now.getTime() + resolved * DAY_MS), tierAtEarn: program.pendingCountsForTier };
}

/** The pending setting in words, for the dashboard and the CLI. */
export function describePending(p: PendingSettings): string {
  const when = p.pendingUntilConfirmed
    ? "pending until the order is confirmed"
    : p.pendingDays === 0
      ? "spendable at once"
      : `pending for ${p.pendingDays} day${p.pendingDays === 1 ? "" : "s"}`;
  return p.pendingDays === 0 && !p.pendingUntilConfirmed
    ? when
    : `${when}; tier points count ${p.pendingCountsForTier ? "at the earn" : "when they mature"}`;
}
