/** Fixtures made through the domain layer, for tests that call lib/ directly (the HTTP tests use the CLI: stack.ts). */
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { createApiKey } from "@/lib/domain/api-keys";
import { createProgram } from "@/lib/domain/programs";
import { createTier } from "@/lib/domain/tiers";

export interface ProgramFixture {
  programId: string;
  key: string;
  keyId: string;
  tiers: { bronze: string; silver: string; gold: string };
}

/** A program with Bronze (0, ×1), Silver (1000, ×1.25) and Gold (5000, ×1.5) and a key with a generous rate limit. */
export async function programWithTiers(prisma: PrismaClient, name = "Test program"): Promise<ProgramFixture> {
  const { programId } = await createProgram(prisma, { name });
  const bronze = await createTier(prisma, { programId, name: "Bronze", requiredPoints: 0, factor: 1 });
  const silver = await createTier(prisma, { programId, name: "Silver", requiredPoints: 1000, factor: 1.25 });
  const gold = await createTier(prisma, { programId, name: "Gold", requiredPoints: 5000, factor: 1.5 });
  const key = await createApiKey(prisma, { programId, name: "test", rateLimitPerSec: 100_000 });
  return { programId, key: key.key, keyId: key.id, tiers: { bronze: bronze.tierId, silver: silver.tierId, gold: gold.tierId } };
}
