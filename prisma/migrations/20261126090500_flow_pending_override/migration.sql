-- An earning flow's override of the program's pending setting (issue 27; lib/domain/pending-rules.ts): pendingDays
-- (0: spendable at once) or pendingUntilConfirmed; neither: the program's setting. A campaign's override lives in its
-- definition (JSON), frozen with each version.
ALTER TABLE "EarningFlow" ADD COLUMN "pendingDays" INTEGER;
ALTER TABLE "EarningFlow" ADD COLUMN "pendingUntilConfirmed" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "EarningFlow" ADD CONSTRAINT "EarningFlow_pendingDays_check" CHECK ("pendingDays" IS NULL OR "pendingDays" BETWEEN 0 AND 365);
