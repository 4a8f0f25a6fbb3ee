-- Segments at scale (issue 24): the next instant each customer's answer to a segment's filter can flip with time
-- alone, so passes recompute only the customers due (lib/domain/segments/membership.ts).
ALTER TABLE "Segment" ADD COLUMN "checkedAt" TIMESTAMPTZ(3);

CREATE TABLE "SegmentFlip" (
    "segmentId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "programId" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SegmentFlip_pkey" PRIMARY KEY ("segmentId","customerId")
);

CREATE INDEX "SegmentFlip_segmentId_at_idx" ON "SegmentFlip"("segmentId", "at");
