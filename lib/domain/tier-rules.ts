/**
 * Every tier decision of API.md §4, as pure functions over a customer's tier state: the earn, the period close,
 * the re-evaluation after the program's tiers change, a reversed earn, the tier projected at the period's end and
 * the tier a migration sets. The database code loads the state (tiers-engine.ts `loadTierState`), calls a rule and writes its result. Two
 * rules also have an SQL twin, for one-statement writes; a property test runs each twin against its rule:
 *  - `applyEarn`: ledger.ts `tierCtes` (test/unit/tier-rules-sql.test.ts),
 *  - `reevaluate`: tiers.ts `REEVALUATE_SQL` (test/unit/tier-rules-sql.test.ts).
 */
import type { TierStatus } from "./vocabulary";

export interface TierDef {
  id: string;
  requiredPoints: number;
  factor: number;
}

export interface TierState {
  currentTierId: string | null;
  carryTierId: string | null;
  currentTierPoints: number;
  carryTierPoints: number;
  tierChangedAt: Date | null;
  recalculationDate: Date | null;
  tierStatus: TierStatus;
}

/** Tiers sorted by requiredPoints (ties by id, so the order is total). */
/**
 * Points earned at a tier: the base points × the tier's factor (1 without a tier), rounded down. The earn of an
 * earning flow (earning-flows.ts, in TypeScript and as its SQL twin) and a campaign's awards (campaigns/effects.ts).
 */
export const withTierFactor = (points: number, factor: number | null | undefined): number =>
  Math.floor(points * (factor ?? 1) + 1e-9);

export const sortTiers = <T extends TierDef>(tiers: readonly T[]): T[] =>
  [...tiers].sort((a, b) => a.requiredPoints - b.requiredPoints || (a.id < b.id ? -1 : 1));

const rank = (sorted: readonly TierDef[], id: string | null) =>
  id === null ? -1 : sorted.findIndex((t) => t.id === id);

/** The highest tier whose requiredPoints the points reach, or null when none (no tiers, or all above). */
export function tierForPoints<T extends TierDef>(sorted: readonly T[], points: number): T | null {
  let reached: T | null = null;
  for (const t of sorted) if (t.requiredPoints <= points) reached = t;
  return reached;
}

/** The better of two tiers by rank. */
function better(sorted: readonly TierDef[], a: string | null, b: string | null): string | null {
  return rank(sorted, a) >= rank(sorted, b) ? a : b;
}

function statusFor(sorted: readonly TierDef[], currentTierId: string | null, earned: boolean): TierStatus {
  if (rank(sorted, currentTierId) <= 0) return "base";
  return earned ? "earned" : "carried";
}

/**
 * Points earned in the current period: counts towards the tier and upgrades at once when a tier is reached. Its SQL
 * twin is ledger.ts `tierCtes`, within the balance change's one statement: change both together
 * (test/unit/tier-rules-sql.test.ts runs both on generated cases).
 */
export function applyEarn(state: TierState, tiers: TierDef[], points: number, now: Date): TierState {
  const sorted = sortTiers(tiers);
  // Stored as int4; a period's points saturate rather than overflow.
  const currentTierPoints = Math.min(2_147_483_647, state.currentTierPoints + points);
  const reached = tierForPoints(sorted, currentTierPoints);
  const currentTierId = better(sorted, state.currentTierId, reached?.id ?? null);
  const earnedCurrent = reached !== null && rank(sorted, reached.id) >= rank(sorted, currentTierId);
  return {
    ...state,
    currentTierPoints,
    currentTierId,
    tierChangedAt: currentTierId !== state.currentTierId ? now : state.tierChangedAt,
    tierStatus: earnedCurrent ? statusFor(sorted, currentTierId, true) : state.tierStatus,
  };
}

/**
 * Whether the customer's period has ended by `now` and must be closed before anything else counts. The hot path's
 * statement checks the same in SQL (ledger.ts `changeCtes`, `tier_due`) and hands such an earn to the locked path.
 */
export const periodEnded = (state: Pick<TierState, "recalculationDate">, now: Date) =>
  state.recalculationDate !== null && state.recalculationDate.getTime() <= now.getTime();

/**
 * Closes every period that ended at or before `now`: the period's points become the carry points and
 * the tier they reached the carry tier; the customer keeps the better of the carry tier and the base tier
 * (the program's lowest, which every customer is created on); downgrades happen only here.
 */
export function recalculate(state: TierState, tiers: TierDef[], periodMonths: number, now: Date): TierState {
  const sorted = sortTiers(tiers);
  let next = state;
  while (periodEnded(next, now)) {
    const carry = tierForPoints(sorted, next.currentTierPoints);
    const currentTierId = tierAtClose(sorted, next.currentTierPoints)?.id ?? null;
    next = {
      currentTierId,
      carryTierId: carry?.id ?? null,
      carryTierPoints: next.currentTierPoints,
      currentTierPoints: 0,
      tierChangedAt: currentTierId !== next.currentTierId ? now : next.tierChangedAt,
      recalculationDate: addMonths(next.recalculationDate!, periodMonths),
      tierStatus: statusFor(sorted, currentTierId, false),
    };
  }
  return next;
}

/**
 * The tier a period's points keep when the period closes: the tier they reach, at least the base tier. The base tier
 * is the lowest one, whatever its requiredPoints: every customer is created on it (customers.ts). Also the projection
 * shown before the close (the dashboard's reversal answer).
 */
export function tierAtClose<T extends TierDef>(sorted: readonly T[], periodPoints: number): T | null {
  return tierForPoints(sorted, periodPoints) ?? sorted[0] ?? null;
}

/**
 * The tier a migration sets (API.md §3 `loyalty` items, as the former system knew it): held as a carried tier until
 * the period ends, when the points earned here decide; `base` on the lowest tier, which carries nothing.
 */
export function migratedTier(
  sorted: readonly TierDef[],
  tierId: string,
): { currentTierId: string; carryTierId: string | null; tierStatus: TierStatus } {
  const lowest = sorted[0]?.id === tierId;
  return { currentTierId: tierId, carryTierId: lowest ? null : tierId, tierStatus: lowest ? "base" : "carried" };
}

/**
 * The state recomputed against the program's tiers after they changed (a threshold edited, a tier removed: `tiers`
 * no longer has it). The customer holds the best of the tier the current period's points reach ("earned"), the tier
 * the last period's points reach ("carried"; also the new carry tier) and the base tier ("base"). So a lowered
 * threshold upgrades at once whoever now reaches it, and a raised threshold or a removed tier moves its holders to
 * the best tier they still qualify for. Its SQL twin is tiers.ts `REEVALUATE_SQL`, one statement for the whole
 * program (test/unit/tier-rules-sql.test.ts runs both on generated cases).
 */
export function reevaluate(state: TierState, tiers: TierDef[], now: Date): TierState {
  const sorted = sortTiers(tiers);
  const earned = tierForPoints(sorted, state.currentTierPoints)?.id ?? null;
  const carryTierId = tierForPoints(sorted, state.carryTierPoints)?.id ?? null;
  const currentTierId = better(sorted, better(sorted, earned, carryTierId), sorted[0]?.id ?? null);
  return {
    ...state,
    currentTierId,
    carryTierId,
    tierChangedAt: currentTierId !== state.currentTierId ? now : state.tierChangedAt,
    tierStatus: statusFor(sorted, currentTierId, currentTierId === earned),
  };
}

/**
 * A reversed earn lowers the tier points of the period it counted in by the points requested, never below 0: the
 * current period's (`currentTierPoints`), the previous period's (`carryTierPoints`), nothing for older periods. The
 * tier itself changes only at the period close (API.md §4); but `earned` means the current tier was reached in this
 * period, so when the reversal takes the period's points below it the status becomes `carried` (still `base` on the
 * lowest tier). `state` must be as of the earn's reversal, its ended periods closed (`recalculate`). Answers the
 * state after the reversal and the tier points removed.
 */
export function reverseEarn(
  state: TierState,
  tiers: TierDef[],
  periodMonths: number,
  earnedAt: Date,
  points: number,
): { state: TierState; removed: number } {
  const end = state.recalculationDate;
  const start = end ? addMonths(end, -periodMonths) : null;
  const at = earnedAt.getTime();
  const period =
    !start || at >= start.getTime() ? "current" : at >= addMonths(start, -periodMonths).getTime() ? "carry" : null;
  if (!period) return { state, removed: 0 };
  const held = period === "current" ? state.currentTierPoints : state.carryTierPoints;
  const removed = Math.min(points, held);
  if (removed <= 0) return { state, removed: 0 };
  if (period === "carry") return { state: { ...state, carryTierPoints: held - removed }, removed };
  const sorted = sortTiers(tiers);
  const currentTierPoints = held - removed;
  const reached = tierForPoints(sorted, currentTierPoints);
  const stillEarned = rank(sorted, reached?.id ?? null) >= rank(sorted, state.currentTierId);
  return {
    state: { ...state, currentTierPoints, tierStatus: statusFor(sorted, state.currentTierId, stillEarned) },
    removed,
  };
}

/** Calendar months in UTC, clamped to the month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(date: Date, months: number): Date {
  const d = new Date(date.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}
