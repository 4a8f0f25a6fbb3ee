import "server-only";
import type { Db, RawQueries, Tx } from "@/lib/db/types";
import { requireRow } from "@/lib/db/require-row";
import { conflict, notFound, uniqueOr409 } from "@/lib/errors";
import { requireProgram } from "./programs";
import { programNow } from "./clock";
import { jsonObject, tierFields } from "./sql";
import { tierRank } from "./tier-ranking";

export interface TierInput {
  programId: string;
  name: string;
  requiredPoints: number;
  factor: number;
  content?: string | null;
  image?: string | null;
}

export async function createTier(db: Db, input: TierInput): Promise<{ tierId: string }> {
  await requireProgram(db, input.programId);
  const tier = await uniqueOr409(
    () => db.tier.create({ data: input, select: { id: true } }),
    () => conflict(`The program already has a tier named "${input.name}".`, [{ path: "name", message: "is taken" }]),
  );
  return { tierId: tier.id };
}

/** The program's tiers as spec §2.5 objects, lowest requiredPoints first. */
export async function listTiersJson(db: RawQueries, programId: string): Promise<string> {
  const rows = await db.$queryRawUnsafe<{ body: string }[]>(
    `SELECT coalesce(json_agg(${jsonObject(tierFields("t"))} ORDER BY t."requiredPoints", t."createdAt", t.id), '[]'::json)::text AS body
     FROM "Tier" t WHERE t."programId" = $1::uuid`,
    programId,
  );
  return rows[0]?.body ?? "[]";
}

/**
 * Re-evaluates the tier of every customer of the program after its tiers changed (a threshold edited, a tier
 * removed), in the caller's transaction, so no customer is ever left on a removed tier or on one its points no
 * longer reach. The SQL twin of tier-rules.ts `reevaluate` (the rule), so that a program of any size is one
 * statement rather than a read and a write per customer; test/unit/tier-rules-sql.test.ts runs both on generated
 * cases. Customers whose tier is unchanged are not written. Each customer whose current tier changes gets a
 * `tier.changed` event, as an earn would give it.
 *
 * `without` leaves a tier out of the evaluation (the tier being removed: its holders move before it goes).
 * Concurrency: every balance row of the program is locked first (the lock every balance change takes before it
 * reads or writes the customer's tier), so no earn runs against the old tiers while this one commits the new.
 */
const REEVALUATE_SQL = `
WITH locked AS (
  SELECT l."customerId", l."tierStatus" FROM "LoyaltyData" l JOIN "Customer" c ON c.id = l."customerId"
  WHERE c."programId" = $1::uuid ORDER BY l."customerId" FOR UPDATE OF l
), ranked AS (
  SELECT t.id, t."requiredPoints", ${tierRank("t")} AS rank
  FROM "Tier" t WHERE t."programId" = $1::uuid AND t.id IS DISTINCT FROM $3::uuid
), state AS (
  SELECT ct."customerId", ct."currentTierId" AS "fromTierId", ct."carryTierId" AS "fromCarryId", locked."tierStatus" AS "fromStatus",
         (SELECT r.id FROM ranked r WHERE r."requiredPoints" <= ct."currentTierPoints" ORDER BY r.rank DESC LIMIT 1) AS earned,
         (SELECT r.id FROM ranked r WHERE r."requiredPoints" <= ct."carryTierPoints" ORDER BY r.rank DESC LIMIT 1) AS carry,
         (SELECT r.id FROM ranked r ORDER BY r.rank LIMIT 1) AS base
  FROM "CustomerTier" ct JOIN locked ON locked."customerId" = ct."customerId"
), decided AS (
  SELECT s.*, best.id AS "toTierId",
         CASE WHEN best.rank IS NULL OR best.rank <= 1 THEN 'base' WHEN best.id = s.earned THEN 'earned' ELSE 'carried' END AS "toStatus"
  FROM state s LEFT JOIN LATERAL (
    SELECT r.id, r.rank FROM ranked r WHERE r.id IN (s.earned, s.carry, s.base) ORDER BY r.rank DESC LIMIT 1
  ) best ON true
), tiers AS (
  UPDATE "CustomerTier" ct
  SET "currentTierId" = d."toTierId", "carryTierId" = d.carry,
      "tierChangedAt" = CASE WHEN d."toTierId" IS DISTINCT FROM d."fromTierId" THEN $2::timestamptz ELSE ct."tierChangedAt" END
  FROM decided d
  WHERE ct."customerId" = d."customerId"
    AND (d."toTierId" IS DISTINCT FROM d."fromTierId" OR d.carry IS DISTINCT FROM d."fromCarryId")
  RETURNING ct."customerId"
), statuses AS (
  UPDATE "LoyaltyData" l SET "tierStatus" = d."toStatus"
  FROM decided d WHERE l."customerId" = d."customerId" AND l."tierStatus" <> d."toStatus"
  RETURNING l."customerId"
), events AS (
  INSERT INTO "Event" ("programId", type, data, "createdAt")
  SELECT $1::uuid, 'tier.changed', jsonb_build_object('customerId', d."customerId", 'fromTierId', d."fromTierId",
         'toTierId', d."toTierId", 'tierStatus', d."toStatus"), $2::timestamptz
  FROM decided d WHERE d."toTierId" IS DISTINCT FROM d."fromTierId"
  RETURNING 1
)
SELECT (SELECT count(*) FROM tiers)::int AS moved, (SELECT count(*) FROM statuses)::int AS restated,
       (SELECT count(*) FROM events)::int AS changed`;

/** See REEVALUATE_SQL. Returns how many customers changed tier. */
export async function reevaluateTiers(
  tx: Tx,
  programId: string,
  options: { without?: string; now?: Date } = {},
): Promise<{ customersMoved: number }> {
  const [row] = await tx.$queryRawUnsafe<{ changed: number }[]>(
    REEVALUATE_SQL,
    programId,
    (options.now ?? programNow(programId)).toISOString(),
    options.without ?? null,
  );
  return { customersMoved: Number(row?.changed ?? 0) };
}

/** The program's tier with the fields an edit shows, or 404 `not_found`. */
export async function requireTier(db: Db, programId: string, tierId: string) {
  return requireRow(
    tierId,
    (id) =>
      db.tier.findFirst({
        where: { id, programId },
        select: { id: true, name: true, content: true, image: true, requiredPoints: true, factor: true },
      }),
    () => notFound("tier"),
  );
}

export type TierChanges = Partial<Omit<TierInput, "programId">>;

/**
 * Changes a tier of the program. A new threshold re-evaluates every customer of the program in the same
 * transaction (reevaluateTiers); a new factor applies to points earned from now on.
 */
export async function updateTier(tx: Tx, programId: string, tierId: string, changes: TierChanges) {
  const before = await requireTier(tx, programId, tierId);
  await uniqueOr409(
    () => tx.tier.update({ where: { id: tierId }, data: changes, select: { id: true } }),
    () => conflict(`The program already has a tier named "${changes.name}".`, [{ path: "name", message: "is taken" }]),
  );
  const moved =
    changes.requiredPoints !== undefined && changes.requiredPoints !== before.requiredPoints
      ? await reevaluateTiers(tx, programId)
      : { customersMoved: 0 };
  return { tierId, ...moved };
}

/**
 * Removes a tier of the program: its holders are re-evaluated without it first (reevaluateTiers), then it is
 * deleted, in the caller's transaction. A tier that a reward requires is refused (409 `conflict`), so no reward
 * silently opens to every customer.
 */
export async function removeTier(tx: Tx, programId: string, tierId: string) {
  await requireTier(tx, programId, tierId);
  const rewards = await tx.reward.findMany({ where: { minTierId: tierId }, select: { name: true }, take: 5 });
  if (rewards.length > 0)
    throw conflict(
      `Rewards require this tier (${rewards.map((r) => `"${r.name}"`).join(", ")}): change their minimum tier first.`,
    );
  const moved = await reevaluateTiers(tx, programId, { without: tierId });
  await tx.tier.delete({ where: { id: tierId } });
  return { tierId, removed: true, ...moved };
}
