/**
 * The program's tiers in rank order, for SQL and for the pure rules of tier-rules.ts: the one ranking fragment
 * and the one way a query loads the tiers for those rules. The order is tier-rules.ts `sortTiers` (requiredPoints,
 * ties by id); a uuid's order in PostgreSQL is its text's, so both sides rank alike.
 */
import type { Db } from "@/lib/db/types";
import { sortTiers, type TierDef } from "./tier-rules";

/** A tier with the name a page or an answer shows beside it. */
export interface RankedTier extends TierDef {
  name: string;
}

/** `ORDER BY` terms of the tier order, for the tier table aliased `t`. */
export const tierOrder = (t: string) => `${t}."requiredPoints", ${t}.id`;

/** A tier's rank in its program, 1 for the lowest (the base tier), for the tier table aliased `t`. */
export const tierRank = (t: string) => `row_number() OVER (ORDER BY ${tierOrder(t)})`;

/**
 * The program's tiers as one JSON column, so a query that reads a customer's tier state loads the tiers in the same
 * round trip; `rankedTiers` reads the column back.
 */
export const tiersColumn = (programId: string) =>
  `(SELECT coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'requiredPoints', t."requiredPoints", 'factor', t.factor)
                             ORDER BY ${tierOrder("t")}), '[]')
     FROM "Tier" t WHERE t."programId" = ${programId})`;

/** The tiers of a `tiersColumn`, lowest first (drivers hand json back parsed or as text). */
export const rankedTiers = (column: RankedTier[] | string): RankedTier[] =>
  sortTiers(typeof column === "string" ? (JSON.parse(column) as RankedTier[]) : column);

/** The program's tiers, lowest first, when no customer state is read with them. */
export async function loadTiers(db: Db, programId: string): Promise<RankedTier[]> {
  const [row] = await db.$queryRawUnsafe<{ tiers: RankedTier[] | string }[]>(
    `SELECT ${tiersColumn("$1::uuid")} AS tiers`,
    programId,
  );
  return rankedTiers(row?.tiers ?? []);
}
