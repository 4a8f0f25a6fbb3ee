-- Points accounting (issue 27): today so far, rolled up every few minutes of the program clock
-- (lib/domain/accounting.ts `rollUpToday`), so a report computes from the ledger only what was written since.

-- CreateTable
CREATE TABLE "PointsToday" (
    "programId" UUID NOT NULL,
    "timeZone" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "asOf" TIMESTAMPTZ(3) NOT NULL,
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
    "activeMembers" INTEGER NOT NULL DEFAULT 0,
    "activeRecent" INTEGER[] DEFAULT ARRAY[]::INTEGER[],

    CONSTRAINT "PointsToday_pkey" PRIMARY KEY ("programId")
);

-- AddForeignKey
ALTER TABLE "PointsToday" ADD CONSTRAINT "PointsToday_programId_fkey" FOREIGN KEY ("programId") REFERENCES "Program"("id") ON DELETE CASCADE ON UPDATE CASCADE;
