-- CreateTable
CREATE TABLE "Program" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "tierPeriodMonths" INTEGER NOT NULL DEFAULT 12,
    "pointsExpiryMonths" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Program_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "rateLimitPerSec" INTEGER NOT NULL DEFAULT 50,
    "rateLimitBurst" INTEGER NOT NULL DEFAULT 100,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Customer" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "email" TEXT,
    "origin" TEXT NOT NULL DEFAULT 'API',
    "referral" TEXT,
    "utmCampaign" TEXT,
    "utmSource" TEXT,
    "utmMedium" TEXT,
    "language" TEXT,
    "balanceNotifications" BOOLEAN NOT NULL DEFAULT true,
    "tierNotifications" BOOLEAN NOT NULL DEFAULT true,
    "rewardAvailableNotifications" BOOLEAN NOT NULL DEFAULT true,
    "locationNotifications" BOOLEAN NOT NULL DEFAULT true,
    "marketingNotifications" BOOLEAN NOT NULL DEFAULT false,
    "referralEarned" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Customer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UserData" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "customerId" UUID NOT NULL,
    "programId" UUID NOT NULL,
    "externalCustomerId" TEXT,
    "firstName" TEXT,
    "lastName" TEXT,
    "phone" TEXT,
    "birthdate" TEXT,
    "emailVerified" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UserData_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LoyaltyData" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "customerId" UUID NOT NULL,
    "loyaltyCustomerId" TEXT NOT NULL,
    "balance" INTEGER NOT NULL DEFAULT 0,
    "memberSince" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "tierStatus" TEXT NOT NULL DEFAULT 'base',
    "referralLink" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LoyaltyData_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CustomerTier" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "customerId" UUID NOT NULL,
    "currentTierId" UUID,
    "carryTierId" UUID,
    "currentTierPoints" INTEGER NOT NULL DEFAULT 0,
    "carryTierPoints" INTEGER NOT NULL DEFAULT 0,
    "tierChangedAt" TIMESTAMPTZ(3),
    "recalculationDate" TIMESTAMPTZ(3),

    CONSTRAINT "CustomerTier_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Tier" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "content" TEXT,
    "image" TEXT,
    "requiredPoints" INTEGER NOT NULL,
    "factor" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Tier_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LedgerEntry" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "points" INTEGER NOT NULL,
    "balanceAfter" INTEGER NOT NULL,
    "reason" TEXT,
    "source" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    "metadata" JSONB,
    "earningFlowId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3),

    CONSTRAINT "LedgerEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PointLot" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "customerId" UUID NOT NULL,
    "ledgerEntryId" UUID NOT NULL,
    "remaining" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3),

    CONSTRAINT "PointLot_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EarningFlow" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT,
    "points" INTEGER,
    "pointsPerUnit" DOUBLE PRECISION,
    "param" TEXT,
    "capPerDay" INTEGER,
    "capTotal" INTEGER,
    "once" BOOLEAN NOT NULL DEFAULT false,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EarningFlow_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IdempotencyRecord" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "apiKeyId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "requestHash" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "body" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IdempotencyRecord_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_secretHash_key" ON "ApiKey"("secretHash");

-- CreateIndex
CREATE INDEX "ApiKey_programId_idx" ON "ApiKey"("programId");

-- CreateIndex
CREATE INDEX "Customer_programId_createdAt_idx" ON "Customer"("programId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Customer_programId_email_key" ON "Customer"("programId", "email");

-- CreateIndex
CREATE UNIQUE INDEX "UserData_customerId_key" ON "UserData"("customerId");

-- CreateIndex
CREATE UNIQUE INDEX "UserData_programId_externalCustomerId_key" ON "UserData"("programId", "externalCustomerId");

-- CreateIndex
CREATE UNIQUE INDEX "LoyaltyData_customerId_key" ON "LoyaltyData"("customerId");

-- CreateIndex
CREATE UNIQUE INDEX "LoyaltyData_loyaltyCustomerId_key" ON "LoyaltyData"("loyaltyCustomerId");

-- CreateIndex
CREATE UNIQUE INDEX "CustomerTier_customerId_key" ON "CustomerTier"("customerId");

-- CreateIndex
CREATE INDEX "CustomerTier_recalculationDate_idx" ON "CustomerTier"("recalculationDate");

-- CreateIndex
CREATE INDEX "CustomerTier_currentTierId_idx" ON "CustomerTier"("currentTierId");

-- CreateIndex
CREATE INDEX "Tier_programId_requiredPoints_idx" ON "Tier"("programId", "requiredPoints");

-- CreateIndex
CREATE UNIQUE INDEX "Tier_programId_name_key" ON "Tier"("programId", "name");

-- CreateIndex
CREATE INDEX "LedgerEntry_customerId_createdAt_id_idx" ON "LedgerEntry"("customerId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "LedgerEntry_customerId_earningFlowId_createdAt_idx" ON "LedgerEntry"("customerId", "earningFlowId", "createdAt");

-- CreateIndex
CREATE INDEX "LedgerEntry_programId_createdAt_idx" ON "LedgerEntry"("programId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "PointLot_ledgerEntryId_key" ON "PointLot"("ledgerEntryId");

-- CreateIndex
CREATE INDEX "PointLot_customerId_createdAt_id_idx" ON "PointLot"("customerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "PointLot_expiresAt_idx" ON "PointLot"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "EarningFlow_programId_key_key" ON "EarningFlow"("programId", "key");

-- CreateIndex
CREATE INDEX "IdempotencyRecord_createdAt_idx" ON "IdempotencyRecord"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "IdempotencyRecord_apiKeyId_key_key" ON "IdempotencyRecord"("apiKeyId", "key");

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_programId_fkey" FOREIGN KEY ("programId") REFERENCES "Program"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Customer" ADD CONSTRAINT "Customer_programId_fkey" FOREIGN KEY ("programId") REFERENCES "Program"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserData" ADD CONSTRAINT "UserData_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LoyaltyData" ADD CONSTRAINT "LoyaltyData_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomerTier" ADD CONSTRAINT "CustomerTier_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomerTier" ADD CONSTRAINT "CustomerTier_currentTierId_fkey" FOREIGN KEY ("currentTierId") REFERENCES "Tier"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomerTier" ADD CONSTRAINT "CustomerTier_carryTierId_fkey" FOREIGN KEY ("carryTierId") REFERENCES "Tier"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Tier" ADD CONSTRAINT "Tier_programId_fkey" FOREIGN KEY ("programId") REFERENCES "Program"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LedgerEntry" ADD CONSTRAINT "LedgerEntry_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PointLot" ADD CONSTRAINT "PointLot_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PointLot" ADD CONSTRAINT "PointLot_ledgerEntryId_fkey" FOREIGN KEY ("ledgerEntryId") REFERENCES "LedgerEntry"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EarningFlow" ADD CONSTRAINT "EarningFlow_programId_fkey" FOREIGN KEY ("programId") REFERENCES "Program"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Balance can never go negative (not expressible in schema.prisma; Prisma Migrate leaves CHECK constraints alone)
ALTER TABLE "LoyaltyData" ADD CONSTRAINT "LoyaltyData_balance_nonnegative" CHECK ("balance" >= 0);
ALTER TABLE "PointLot" ADD CONSTRAINT "PointLot_remaining_nonnegative" CHECK ("remaining" >= 0);
