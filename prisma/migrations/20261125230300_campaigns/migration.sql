-- Campaigns (issue 23): declared event types, campaigns with immutable versions, per-customer usage counters and
-- the customer event log (lib/domain/campaigns/).

-- CreateTable
CREATE TABLE "EventType" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "attributes" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EventType_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Campaign" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'draft',
    "draft" JSONB,
    "version" INTEGER,
    "budgetUsed" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Campaign_pkey" PRIMARY KEY ("id"),
    -- A reversal gives budget back; what it gives back was given, so the counter never goes below zero.
    CONSTRAINT "Campaign_budgetUsed_check" CHECK ("budgetUsed" >= 0)
);

-- CreateTable
CREATE TABLE "CampaignVersion" (
    "campaignId" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "programId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "attrTypes" JSONB NOT NULL,
    "activatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "CampaignVersion_pkey" PRIMARY KEY ("campaignId","version")
);

-- CreateTable
CREATE TABLE "CampaignUsage" (
    "programId" UUID NOT NULL,
    "campaignId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "window" TEXT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "CampaignUsage_pkey" PRIMARY KEY ("campaignId","customerId","window"),
    CONSTRAINT "CampaignUsage_count_check" CHECK ("count" >= 0)
);

-- CreateTable
CREATE TABLE "CustomerEvent" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "occurredAt" TIMESTAMPTZ(3) NOT NULL,
    "orderId" TEXT,
    "attributes" JSONB NOT NULL,
    "outcome" JSONB NOT NULL,
    "idempotencyKey" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "CustomerEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "EventType_programId_type_key" ON "EventType"("programId", "type");

-- CreateIndex
CREATE INDEX "Campaign_programId_status_idx" ON "Campaign"("programId", "status");

-- CreateIndex
CREATE INDEX "CustomerEvent_programId_customerId_occurredAt_idx" ON "CustomerEvent"("programId", "customerId", "occurredAt");

-- CreateIndex
CREATE INDEX "CustomerEvent_programId_type_occurredAt_idx" ON "CustomerEvent"("programId", "type", "occurredAt");

