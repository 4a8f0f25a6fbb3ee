import "server-only";
import type { Db } from "@/lib/db/types";
import { pointsAccounting, type PointsAccounting } from "@/lib/domain/accounting";
import type { ReportRange } from "../report-range";

/**
 * The Finance page's data: the points accounting of the range's days (lib/domain/accounting.ts), read from the daily
 * aggregates and, for the days not rolled up yet, from the ledger. No cache: it reads at most a few hundred day rows.
 */
export const financeReport = (db: Db, programId: string, range: ReportRange): Promise<PointsAccounting> =>
  pointsAccounting(db, programId, range.from, range.to);
