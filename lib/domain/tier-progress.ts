/**
 * The one place for "how far is this customer from the next tier" (the customer page's progress bar). Pure and
 * client-safe. The next tier is the lowest one above both the current tier (which may be a carried tier, above
 * the points: API.md §4) and the points earned this period; a threshold the points already reach is not "next".
 */

export interface TierStep {
  id: string;
  requiredPoints: number;
}

export interface TierProgress<T extends TierStep> {
  /** The tier to reach next, or null at the top (or when the program has no tier above). */
  next: T | null;
  /** Points still missing for `next` (0 at the top). */
  remaining: number;
  /** Whole percent of `next`'s threshold earned, 0–100; 100 at the top. */
  percent: number;
}

export function tierProgress<T extends TierStep>(
  tiers: readonly T[],
  currentTierId: string | null,
  points: number,
): TierProgress<T> {
  const floor = tiers.find((t) => t.id === currentTierId)?.requiredPoints ?? -1;
  let next: T | null = null;
  for (const t of tiers)
    if (
      t.requiredPoints > floor &&
      t.requiredPoints > points &&
      (next === null || t.requiredPoints < next.requiredPoints)
    )
      next = t;
  if (!next) return { next: null, remaining: 0, percent: 100 };
  return { next, remaining: next.requiredPoints - points, percent: progressPercent(points, next) };
}

/** Whole percent of `next`'s threshold that `points` reach, 0–100; 100 when there is no next tier. */
export function progressPercent(points: number, next: { requiredPoints: number } | null): number {
  if (!next) return 100;
  // A threshold of 0 can only be "next" for negative points; max(…, 1) keeps the division finite, and the clamp
  // keeps the bar's aria-valuenow within 0–100.
  const percent = Math.floor((points / Math.max(next.requiredPoints, 1)) * 100);
  return Math.min(100, Math.max(0, percent));
}
