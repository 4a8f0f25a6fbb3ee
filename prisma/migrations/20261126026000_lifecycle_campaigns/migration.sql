-- Lifecycle campaigns (issue 24, lib/domain/campaigns/lifecycle.ts): the occurrence each lifecycle campaign fired
-- for (the unique key that makes it fire exactly once, written in the transaction of its effects), each program's
-- sweep watermark, and the indexes the due customers are found by.

-- AlterTable
ALTER TABLE "UserData" ADD COLUMN     "birthday" TEXT;

-- The birthdate's month and day ("1990-05-20" → "05-20"), kept by the database whoever writes the birthdate (API,
-- dashboard, CLI, import), so the daily birthday sweep reads one index range per day instead of every customer.
CREATE FUNCTION "UserData_birthday"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."birthday" := CASE WHEN NEW.birthdate ~ '^\d{4}-\d{2}-\d{2}' THEN substr(NEW.birthdate, 6, 5) END;
  RETURN NEW;
END $$;
CREATE TRIGGER "UserData_birthday" BEFORE INSERT OR UPDATE OF birthdate ON "UserData"
  FOR EACH ROW EXECUTE FUNCTION "UserData_birthday"();
UPDATE "UserData" SET birthdate = birthdate WHERE birthdate IS NOT NULL;

-- CreateTable
CREATE TABLE "LifecycleOccurrence" (
    "programId" UUID NOT NULL,
    "campaignId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "occurrence" TEXT NOT NULL,
    "campaignVersion" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "firedAt" TIMESTAMPTZ(3) NOT NULL,
    "outcome" JSONB,

    CONSTRAINT "LifecycleOccurrence_pkey" PRIMARY KEY ("campaignId","customerId","occurrence")
);

-- CreateTable
CREATE TABLE "LifecycleSweep" (
    "programId" UUID NOT NULL,
    "sweptTo" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "LifecycleSweep_pkey" PRIMARY KEY ("programId")
);

-- CreateIndex
CREATE INDEX "LifecycleOccurrence_programId_customerId_idx" ON "LifecycleOccurrence"("programId", "customerId");

-- CreateIndex
CREATE INDEX "UserData_programId_birthday_idx" ON "UserData"("programId", "birthday");

-- CreateIndex
CREATE INDEX "LoyaltyData_programId_memberSince_idx" ON "LoyaltyData"("programId", "memberSince");

-- CreateIndex
CREATE INDEX "CustomerEvent_programId_createdAt_idx" ON "CustomerEvent"("programId", "createdAt");
