import "server-only";
import { query, sql } from "@/lib/db/sql";
import type { Db } from "@/lib/db/types";
import type { ReportRange } from "../report-range";

/**
 * The reports' referral figures (lib/domain/referrals.ts), for the period and the one before it, in the program's
 * time zone like the rest of the reports (lib/staff/queries/reports.ts):
 *  - referrals made: recorded in the period (a customer gave a referrer's code);
 *  - completed: the referred customer's first qualifying earn happened in the period;
 *  - points awarded: the referral points of those completions, both sides together.
 * Reads the program's referrals since the previous period's start (index on programId, createdAt / completedAt).
 */

export interface ReferralTotals {
  made: number;
  completed: number;
  points: number;
}

const referralsSql = (programId: string, range: ReportRange) => sql`
WITH b AS (
  SELECT (${range.previous.from}::date)::timestamp AT TIME ZONE p."timeZone" AS prev_start, (${range.from}::date)::timestamp AT TIME ZONE p."timeZone" AS start,
         (${range.to}::date + 1)::timestamp AT TIME ZONE p."timeZone" AS "end"
  FROM "Program" p WHERE p.id = ${programId}::uuid
), made AS (
  SELECT count(*) FILTER (WHERE r."createdAt" >= b.start)::int AS current,
         count(*) FILTER (WHERE r."createdAt" < b.start)::int AS previous
  FROM "Referral" r CROSS JOIN b
  WHERE r."programId" = ${programId}::uuid AND r."createdAt" >= b.prev_start AND r."createdAt" < b."end"
), done AS (
  SELECT count(*) FILTER (WHERE r."completedAt" >= b.start)::int AS current,
         count(*) FILTER (WHERE r."completedAt" < b.start)::int AS previous,
         coalesce(sum(r."referrerPoints" + r."referredPoints") FILTER (WHERE r."completedAt" >= b.start), 0)::float8 AS points_current,
         coalesce(sum(r."referrerPoints" + r."referredPoints") FILTER (WHERE r."completedAt" < b.start), 0)::float8 AS points_previous
  FROM "Referral" r CROSS JOIN b
  WHERE r."programId" = ${programId}::uuid AND r."completedAt" >= b.prev_start AND r."completedAt" < b."end"
)
SELECT made.current AS made_current, made.previous AS made_previous, done.current AS done_current,
       done.previous AS done_previous, done.points_current, done.points_previous
FROM made, done`;

/** The referral figures of `range` and of the period before it. */
export async function referralReport(
  db: Db,
  programId: string,
  range: ReportRange,
): Promise<{ current: ReferralTotals; previous: ReferralTotals }> {
  const [row] = await query<Record<string, number>>(db, referralsSql(programId, range));
  const n = (key: string) => Number(row?.[key] ?? 0);
  return {
    current: { made: n("made_current"), completed: n("done_current"), points: n("points_current") },
    previous: { made: n("made_previous"), completed: n("done_previous"), points: n("points_previous") },
  };
}
