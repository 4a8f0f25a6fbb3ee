/**
 * The tier rules of API.md §4 as pure functions over a customer's tier state. The database code in
 * tiers-engine.ts applies them under the customer's row lock; keeping them pure keeps them testable.
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
export const sortTiers = (tiers: TierDef[]) =>
  [...tiers].sort((a, b) => a.requiredPoints - b.requiredPoints || (a.id < b.id ? -1 : 1));

const rank = (sorted: TierDef[], id: string | null) => (id === null ? -1 : sorted.findIndex((t) => t.id === id));

/** The highest tier whose requiredPoints the points reach, or null when none (no tiers, or all above). */
export function tierForPoints(sorted: TierDef[], points: number): TierDef | null {
  let reached: TierDef | null = null;
  for (const t of sorted) if (t.requiredPoints <= points) reached = t;
  return reached;
}

/** The better of two tiers by rank. */
function better(sorted: TierDef[], a: string | null, b: string | null): string | null {
  return rank(sorted, a) >= rank(sorted, b) ? a : b;
}

function statusFor(sorted: TierDef[], currentTierId: string | null, earned: boolean): TierStatus {
  if (rank(sorted, currentTierId) <= 0) return "base";
  return earned ? "earned" : "carried";
}

/**
 * Points earned in the current period: counts towards the tier and upgrades at once when a tier is reached. The
 * database applies this rule in SQL within the balance change's one statement (ledger.ts `changeCtes`, CTE `tier`):
 * change both together (test/unit/ledger-property.test.ts checks the database against an independent model).
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
 * Closes every period that ended at or before `now`: the period's points become the carry points and
 * the tier they reached the carry tier; the customer keeps the better of the carry tier and the base tier
 * (the program's lowest, which every customer is created on); downgrades happen only here.
 */
export function recalculate(state: TierState, tiers: TierDef[], periodMonths: number, now: Date): TierState {
  const sorted = sortTiers(tiers);
  let next = state;
  while (next.recalculationDate && next.recalculationDate.getTime() <= now.getTime()) {
    const carry = tierForPoints(sorted, next.currentTierPoints);
    // The base tier is the lowest one, whatever its requiredPoints: every customer is created on it (customers.ts).
    const base = sorted[0] ?? null;
    const currentTierId = better(sorted, carry?.id ?? null, base?.id ?? null);
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
