-- What a test program's clock did (issue 25): one row per applied advance with its report (lib/domain/clock-advances.ts).
CREATE TABLE "ClockAdvance" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "fromAt" TIMESTAMPTZ(3) NOT NULL,
    "toAt" TIMESTAMPTZ(3) NOT NULL,
    "applied" JSONB NOT NULL,
    "steps" INTEGER NOT NULL,
    "timeline" JSONB NOT NULL,
    "timelineTotal" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "staffId" UUID,
    "staffEmail" TEXT,
    "requestId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ClockAdvance_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "ClockAdvance_programId_requestId_key" ON "ClockAdvance"("programId", "requestId");
CREATE INDEX "ClockAdvance_programId_createdAt_idx" ON "ClockAdvance"("programId", "createdAt" DESC);

ALTER TABLE "ClockAdvance" ADD CONSTRAINT "ClockAdvance_programId_fkey" FOREIGN KEY ("programId") REFERENCES "Program"("id") ON DELETE CASCADE ON UPDATE CASCADE;
