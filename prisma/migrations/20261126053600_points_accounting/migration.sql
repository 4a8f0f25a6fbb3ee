-- Points accounting (issue 27): the money value of a point, and daily aggregates of the ledger per program
-- (lib/domain/accounting.ts), rolled up by a job on the program clock so reports read days, not entries.

-- AlterTable
ALTER TABLE "Program" ADD COLUMN "currency" TEXT,
ADD COLUMN "pointValue" DECIMAL(18,6);

-- CreateTable
CREATE TABLE "PointsDay" (
    "programId" UUID NOT NULL,
    "day" DATE NOT NULL,
    "earned" BIGINT NOT NULL DEFAULT 0,
    "pendingCreated" BIGINT NOT NULL DEFAULT 0,
    "pendingMatured" BIGINT NOT NULL DEFAULT 0,
    "pendingCancelled" BIGINT NOT NULL DEFAULT 0,
    "reversed" BIGINT NOT NULL DEFAULT 0,
    "redeemed" BIGINT NOT NULL DEFAULT 0,
    "redemptionsCancelled" BIGINT NOT NULL DEFAULT 0,
    "expired" BIGINT NOT NULL DEFAULT 0,
    "adjustedUp" BIGINT NOT NULL DEFAULT 0,
    "adjustedDown" BIGINT NOT NULL DEFAULT 0,
    "erased" BIGINT NOT NULL DEFAULT 0,
    "redemptions" INTEGER NOT NULL DEFAULT 0,
    "newMembers" INTEGER NOT NULL DEFAULT 0,
    "erasedMembers" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "PointsDay_pkey" PRIMARY KEY ("programId","day")
);

-- CreateTable
CREATE TABLE "PointsRollup" (
    "programId" UUID NOT NULL,
    "timeZone" TEXT NOT NULL,
    "throughDay" DATE NOT NULL,
    "rolledAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "PointsRollup_pkey" PRIMARY KEY ("programId")
);

-- AddForeignKey
ALTER TABLE "PointsDay" ADD CONSTRAINT "PointsDay_programId_fkey" FOREIGN KEY ("programId") REFERENCES "Program"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PointsRollup" ADD CONSTRAINT "PointsRollup_programId_fkey" FOREIGN KEY ("programId") REFERENCES "Program"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The erasures of a program by time (the rollup and the reports' days since the last rolled-up one); erased
-- customers are few, so the index is small and a live customer's write never touches it.
CREATE INDEX "Customer_programId_deletedAt_idx" ON "Customer"("programId", "deletedAt") WHERE "deletedAt" IS NOT NULL;
