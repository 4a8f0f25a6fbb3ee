-- Redemption cancel (lib/domain/redemption-cancel.ts): the program's window, and the cancel recorded on the redemption.

-- AlterTable
ALTER TABLE "Program" ADD COLUMN     "redemptionCancelHours" INTEGER DEFAULT 24;
ALTER TABLE "Program" ADD CONSTRAINT "Program_redemptionCancelHours_check" CHECK ("redemptionCancelHours" >= 0);

-- AlterTable
ALTER TABLE "Redemption" ADD COLUMN     "cancelLedgerEntryId" UUID,
ADD COLUMN     "cancelReason" TEXT,
ADD COLUMN     "cancelledAt" TIMESTAMPTZ(3),
ADD COLUMN     "cancelledBy" TEXT;
