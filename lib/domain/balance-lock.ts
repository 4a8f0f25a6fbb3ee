import "server-only";
import type { Tx } from "@/lib/db/types";

/** The customer's balance row lock: the first lock of every balance change (the lock order). */
export async function lockBalance(tx: Tx, programId: string, customerId: string) {
  await tx.$queryRawUnsafe(
    `SELECT 1 FROM "LoyaltyData" WHERE "programId" = $1::uuid AND "customerId" = $2::uuid FOR UPDATE`,
    programId,
    customerId,
  );
}
