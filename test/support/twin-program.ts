import type { PrismaClient } from "@/lib/generated/prisma/client";
import { createProgram } from "@/lib/domain/programs";
import { createTier } from "@/lib/domain/tiers";

/**
 * Twin programs for the tests that compare a set-form write with the one-by-one write (lifecycle-set-earn,
 * event-batch): a program with a 12-month tier period, an expiry policy (a rolling 12 months rounded to the month, or
 * 200 days of inactivity) and the tiers Bronze (0), Silver (100, ×1.5) and Gold (300, ×2). Its id and the tiers' ids.
 */
export async function twinProgram(prisma: PrismaClient, name: string, policy: "rolling" | "inactivity") {
  const { programId } = await createProgram(prisma, { name, tierPeriodMonths: 12 });
  await prisma.$executeRawUnsafe(
    policy === "rolling"
      ? `UPDATE "Program" SET "expiryPolicy" = 'rolling', "pointsExpiryMonths" = 12, "expiryRounding" = 'month' WHERE id = $1::uuid`
      : `UPDATE "Program" SET "expiryPolicy" = 'inactivity', "expiryInactivityDays" = 200 WHERE id = $1::uuid`,
    programId,
  );
  const tiers: string[] = [];
  for (const [tier, requiredPoints, factor] of [
    ["Bronze", 0, 1],
    ["Silver", 100, 1.5],
    ["Gold", 300, 2],
  ] as const)
    tiers.push((await createTier(prisma, { programId, name: tier, requiredPoints, factor })).tierId);
  return { programId, tiers };
}

/**
 * A customer of a twin program written by SQL, as of `since`: `<email>@twin.example.com`, their balance (an opening
 * adjustment and its lot when above 0), and their tier row (tier, tier points, the period's end). Their id.
 */
export async function twinCustomer(
  prisma: PrismaClient,
  c: {
    programId: string;
    email: string;
    since: string;
    balance: number;
    tierId: string;
    points: number;
    periodEnd: string;
  },
) {
  const [row] = await prisma.$queryRawUnsafe<{ id: string }[]>(
    `INSERT INTO "Customer" ("programId", email, "createdAt", "updatedAt")
     VALUES ($1::uuid, $2 || '@twin.example.com', $3::timestamptz, $3::timestamptz) RETURNING id::text`,
    c.programId,
    c.email,
    c.since,
  );
  const id = row!.id;
  await prisma.$executeRawUnsafe(
    `INSERT INTO "LoyaltyData" ("programId", "customerId", "loyaltyCustomerId", balance, "memberSince", "updatedAt")
     VALUES ($1::uuid, $2::uuid, replace($2::text, '-', ''), $3, $4::timestamptz, $4::timestamptz)`,
    c.programId,
    id,
    c.balance,
    c.since,
  );
  if (c.balance > 0)
    await prisma.$executeRawUnsafe(
      `WITH e AS (
         INSERT INTO "LedgerEntry" ("programId", "customerId", type, points, "balanceAfter", reason, source, actor, "createdAt")
         VALUES ($1::uuid, $2::uuid, 'adjust', $3, $3, 'opening', 'system', 'test', $4::timestamptz) RETURNING id)
       INSERT INTO "PointLot" ("programId", "customerId", "ledgerEntryId", remaining, "createdAt")
       SELECT $1::uuid, $2::uuid, e.id, $3, $4::timestamptz FROM e`,
      c.programId,
      id,
      c.balance,
      c.since,
    );
  await prisma.$executeRawUnsafe(
    `INSERT INTO "CustomerTier" ("programId", "customerId", "currentTierId", "currentTierPoints", "tierChangedAt", "recalculationDate")
     VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5::timestamptz, $6::timestamptz)`,
    c.programId,
    id,
    c.tierId,
    c.points,
    c.since,
    c.periodEnd,
  );
  return id;
}
