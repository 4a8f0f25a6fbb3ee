import "server-only";
import type { Db } from "@/lib/db/types";
import { conflict, uniqueOr409 } from "@/lib/errors";
import { requireProgram } from "./programs";
import { jsonObject, tierFields } from "./sql";

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
    () => conflict(`The program already has a tier named "${input.name}".`),
  );
  return { tierId: tier.id };
}

/** The program's tiers as spec §2.5 objects, lowest requiredPoints first. */
export async function listTiersJson(db: Db, programId: string): Promise<string> {
  const rows = await db.$queryRawUnsafe<{ body: string }[]>(
    `SELECT coalesce(json_agg(${jsonObject(tierFields("t"))} ORDER BY t."requiredPoints", t."createdAt", t.id), '[]'::json)::text AS body
     FROM "Tier" t WHERE t."programId" = $1::uuid`,
    programId,
  );
  return rows[0]?.body ?? "[]";
}
