import "server-only";
import type { Db } from "@/lib/db/types";
import { validationFailed } from "@/lib/errors";
import { requireProgram } from "./programs";
import { calendarDateProblem, type ExpiryPolicy, type ExpiryRounding } from "./expiry-rules";

/**
 * The program's points policy (API.md §4 "Pending points" and "Expiry"): pending points and the expiry policy, read
 * and changed by the settings page's "Points: pending and expiry" card and `loyalty program points-policy`. The
 * rolling policy's months stay `pointsExpiryMonths` (the "Program settings" card). A change applies to earns made
 * after it: pending terms and expiry are stamped on each pending earn and lot when it is made.
 */
export const POINTS_POLICY = {
  pendingDays: true,
  pendingUntilConfirmed: true,
  pendingCountsForTier: true,
  expiryPolicy: true,
  pointsExpiryMonths: true,
  expiryRounding: true,
  expiryCalendarDate: true,
  expiryCalendarYears: true,
  expiryInactivityDays: true,
  expiryWarningDays: true,
} as const;

export interface PointsPolicy {
  pendingDays: number;
  pendingUntilConfirmed: boolean;
  pendingCountsForTier: boolean;
  expiryPolicy: ExpiryPolicy;
  pointsExpiryMonths: number | null;
  expiryRounding: ExpiryRounding;
  expiryCalendarDate: string | null;
  expiryCalendarYears: number;
  expiryInactivityDays: number | null;
  expiryWarningDays: number | null;
}

export const getPointsPolicy = async (db: Db, programId: string): Promise<PointsPolicy> =>
  (await requireProgram(db, programId, POINTS_POLICY)) as PointsPolicy;

/** Changes the policy (the fields given); a calendar policy needs its date, an inactivity policy its days. */
export async function updatePointsPolicy(db: Db, programId: string, changes: Partial<PointsPolicy>) {
  // A field left out (undefined) keeps its value.
  const given = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<PointsPolicy>;
  const after = { ...(await getPointsPolicy(db, programId)), ...given };
  if (after.expiryCalendarDate !== null) {
    const problem = calendarDateProblem(after.expiryCalendarDate);
    if (problem) throw validationFailed([{ path: "expiryCalendarDate", message: problem }]);
  }
  if (after.expiryPolicy === "calendar" && after.expiryCalendarDate === null)
    throw validationFailed([{ path: "expiryCalendarDate", message: "a calendar policy needs its date, MM-DD" }]);
  if (after.expiryPolicy === "inactivity" && after.expiryInactivityDays === null)
    throw validationFailed([{ path: "expiryInactivityDays", message: "an inactivity policy needs its days" }]);
  return (await db.program.update({
    where: { id: programId },
    data: given,
    select: POINTS_POLICY,
  })) as PointsPolicy;
}
