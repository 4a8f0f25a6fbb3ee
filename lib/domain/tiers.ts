import type { Db } from "@/lib/db/types";
import { conflict, notFound, uniqueViolation } from "@/lib/errors";
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
  const program = await db.program.findUnique({ where: { id: input.programId }, select: { id: true } });
  if (!program) throw notFound("program");
  try {
    const tier = await db.tier.create({ data: input, select: { id: true } });
    return { tierId: tier.id };
  } catch (err) {
    if (uniqueViolation(err)) throw conflict(`The program already has a tier named "${input.name}".`);
    throw err;
  }
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
