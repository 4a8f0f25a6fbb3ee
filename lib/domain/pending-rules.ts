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
