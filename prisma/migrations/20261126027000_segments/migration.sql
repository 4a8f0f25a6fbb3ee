-- Segments and declared customer attributes (issue 24): lib/domain/customer-attributes.ts, lib/domain/segments/.

-- AlterTable
ALTER TABLE "Customer" ADD COLUMN "customAttributes" JSONB NOT NULL DEFAULT '{}';

-- CreateTable
CREATE TABLE "CustomerAttribute" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CustomerAttribute_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Segment" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "filter" JSONB NOT NULL,
    "emitEvents" BOOLEAN NOT NULL DEFAULT false,
    "recomputedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Segment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SegmentMembership" (
    "segmentId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "programId" UUID NOT NULL,
    "member" BOOLEAN NOT NULL,
    "changedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SegmentMembership_pkey" PRIMARY KEY ("segmentId","customerId")
);

-- CreateIndex
CREATE UNIQUE INDEX "CustomerAttribute_programId_name_key" ON "CustomerAttribute"("programId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "Segment_programId_name_key" ON "Segment"("programId", "name");

-- CreateIndex
CREATE INDEX "SegmentMembership_segmentId_changedAt_customerId_idx" ON "SegmentMembership"("segmentId", "changedAt", "customerId");

-- CreateIndex
CREATE INDEX "SegmentMembership_customerId_idx" ON "SegmentMembership"("customerId");

-- A segment's event predicates (events.<type>.count/sum/lastAt in a window) read one customer's events of one type
-- in a time range.
CREATE INDEX "CustomerEvent_programId_customerId_type_occurredAt_idx" ON "CustomerEvent"("programId", "customerId", "type", "occurredAt");
