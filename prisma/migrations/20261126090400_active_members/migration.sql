-- Issue 27, the Overview at scale: active members kept per day (lib/domain/accounting.ts ACTIVE_LOOKBACK_DAYS).
ALTER TABLE "PointsDay" ADD COLUMN "activeMembers" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "activeRecent" INTEGER[] DEFAULT ARRAY[]::INTEGER[];

-- The days rolled up so far lack them: the points.rollup job rolls every day up again (reports stay exact meanwhile,
-- computed from the ledger: docs/operating.md).
DELETE FROM "PointsDay";
DELETE FROM "PointsRollup";

-- Points expiring soon (the Overview): the program's lots with points left, by expiry, read from the index alone.
CREATE INDEX "PointLot_programId_expiresAt_live_idx" ON "PointLot"("programId", "expiresAt", "remaining", "customerId")
  WHERE "remaining" > 0;
