-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "eventTypes" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "previousSecret" TEXT,
ADD COLUMN     "previousSecretExpiresAt" TIMESTAMPTZ(3);
