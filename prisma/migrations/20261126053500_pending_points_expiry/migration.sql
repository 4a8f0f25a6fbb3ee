-- Issue 27: pending points, expiry policies, cancelled redemptions of expired lots (lib/domain/pending.ts,
-- lib/domain/expiry-rules.ts, lib/domain/redemption-cancel.ts).

-- AlterTable
ALTER TABLE "LoyaltyData" ADD COLUMN     "lastActivityAt" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "PointLot" ADD COLUMN     "idleDays" INTEGER,
ADD COLUMN     "warnedFor" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "Program" ADD COLUMN     "expiryCalendarDate" TEXT,
ADD COLUMN     "expiryCalendarYears" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "expiryInactivityDays" INTEGER,
ADD COLUMN     "expiryPolicy" TEXT NOT NULL DEFAULT 'rolling',
ADD COLUMN     "expiryRounding" TEXT NOT NULL DEFAULT 'none',
ADD COLUMN     "expiryWarningDays" INTEGER,
ADD COLUMN     "pendingCountsForTier" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "pendingDays" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "pendingUntilConfirmed" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Redemption" ADD COLUMN     "lots" JSONB;

-- CreateTable
CREATE TABLE "PendingPoints" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "points" INTEGER NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'earn',
    "reason" TEXT,
    "source" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "metadata" JSONB,
    "earningFlowId" UUID,
    "orderId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "maturesAt" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL DEFAULT 'pending',
    "settledAt" TIMESTAMPTZ(3),
    "ledgerEntryId" UUID,
    "tierCounted" BOOLEAN NOT NULL DEFAULT false,
    "splitFromId" UUID,

    CONSTRAINT "PendingPoints_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PendingPoints_customerId_status_idx" ON "PendingPoints"("customerId", "status");

-- CreateIndex
CREATE INDEX "PendingPoints_programId_orderId_idx" ON "PendingPoints"("programId", "orderId");

-- CreateIndex
CREATE INDEX "PendingPoints_programId_status_maturesAt_idx" ON "PendingPoints"("programId", "status", "maturesAt");

-- CreateIndex
CREATE INDEX "PendingPoints_programId_createdAt_idx" ON "PendingPoints"("programId", "createdAt");

-- CreateIndex
CREATE INDEX "PendingPoints_programId_settledAt_idx" ON "PendingPoints"("programId", "settledAt");

-- AddForeignKey
ALTER TABLE "PendingPoints" ADD CONSTRAINT "PendingPoints_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Pending points are positive; settled rows never change again.
ALTER TABLE "PendingPoints" ADD CONSTRAINT "PendingPoints_points_positive" CHECK (points > 0);
ALTER TABLE "PendingPoints" ADD CONSTRAINT "PendingPoints_status" CHECK (status IN ('pending', 'matured', 'cancelled'));

-- THE expiry rule of a lot earned at `earned` (lib/domain/expiry-rules.ts; API.md §4 "Expiry"): the fixed instant its
-- points expire under the program's policy, or NULL (never, or `inactivity`, which counts from the customer's last
-- activity instead). Every ledger write stamps its lots with it, so a policy change applies to lots earned after it.
-- `rolling`: months after the earn, rounded up to the end of the month/quarter/year (program time zone) when asked;
-- `calendar`: 00:00 of the date "MM-DD" of the year `cal_years` after the earn's year (program time zone).
CREATE FUNCTION loyalty_lot_expiry(earned timestamptz, policy text, months int, rounding text, cal_date text,
                                   cal_years int, tz text) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN policy = 'rolling' AND months IS NOT NULL AND rounding IN ('month', 'quarter', 'year') THEN
      (date_trunc(rounding, (earned + make_interval(months => months)) AT TIME ZONE tz)
        + CASE rounding WHEN 'month' THEN interval '1 month' WHEN 'quarter' THEN interval '3 months' ELSE interval '1 year' END)
        AT TIME ZONE tz
    WHEN policy = 'rolling' AND months IS NOT NULL THEN earned + make_interval(months => months)
    WHEN policy = 'calendar' AND cal_date IS NOT NULL THEN
      make_timestamptz(extract(year FROM earned AT TIME ZONE tz)::int + cal_years, split_part(cal_date, '-', 1)::int,
                       split_part(cal_date, '-', 2)::int, 0, 0, 0, tz)
  END
$$;
