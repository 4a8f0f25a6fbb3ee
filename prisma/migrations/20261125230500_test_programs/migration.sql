-- Test programs (issue 25): fixed at creation; a test program's clock is stored on it (null for a live program).
ALTER TABLE "Program" ADD COLUMN "test" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Program" ADD COLUMN "clockAt" TIMESTAMPTZ(3);
ALTER TABLE "Program" ADD CONSTRAINT "Program_test_clock_check" CHECK (("test" AND "clockAt" IS NOT NULL) OR (NOT "test" AND "clockAt" IS NULL));
