-- AlterTable
ALTER TABLE "LedgerEntry" ADD COLUMN     "orderId" TEXT,
ADD COLUMN     "reversesId" UUID;

-- CreateTable
CREATE TABLE "OrderRefund" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "orderId" TEXT NOT NULL,
    "amount" DOUBLE PRECISION,
    "total" DOUBLE PRECISION,
    "share" DOUBLE PRECISION NOT NULL,
    "pointsReversed" INTEGER NOT NULL,
    "unrecovered" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OrderRefund_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "OrderRefund_programId_orderId_createdAt_idx" ON "OrderRefund"("programId", "orderId", "createdAt");

-- CreateIndex
CREATE INDEX "LedgerEntry_programId_orderId_idx" ON "LedgerEntry"("programId", "orderId");

-- CreateIndex
CREATE INDEX "LedgerEntry_programId_reversesId_idx" ON "LedgerEntry"("programId", "reversesId");
