-- A referral code: 8 characters from an alphabet without look-alikes (no 0/O, 1/I/L), from gen_random_uuid()'s
-- random bytes; 31^8 ≈ 8.5e11 codes, redrawn while the code is taken (the unique index stays the final guard).
-- It is the column's default, so every insert of a customer (API batch, dashboard, CLI, seed) gets one.
CREATE FUNCTION referral_code() RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  alphabet CONSTANT text := '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
  bytes bytea;
  code text;
BEGIN
  LOOP
    bytes := uuid_send(gen_random_uuid());
    code := '';
    -- bytes 0-5 and 10-11 are random in a version 4 UUID (6 and 8 carry the version and variant bits)
    FOR i IN 0..7 LOOP
      code := code || substr(alphabet, 1 + get_byte(bytes, CASE WHEN i < 6 THEN i ELSE i + 4 END) % 31, 1);
    END LOOP;
    EXIT WHEN NOT EXISTS (SELECT 1 FROM "Customer" WHERE "referralCode" = code);
  END LOOP;
  RETURN code;
END $$;

-- AlterTable: existing live customers get their code here (the erased ones none).
ALTER TABLE "Customer" ADD COLUMN     "referralCode" TEXT;
UPDATE "Customer" SET "referralCode" = referral_code() WHERE "deletedAt" IS NULL;
ALTER TABLE "Customer" ALTER COLUMN "referralCode" SET DEFAULT referral_code();

-- AlterTable
ALTER TABLE "Program" ADD COLUMN     "referralCapCount" INTEGER,
ADD COLUMN     "referralCapDays" INTEGER NOT NULL DEFAULT 30,
ADD COLUMN     "referralLinkTemplate" TEXT,
ADD COLUMN     "referralMinEarnPoints" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "referralReferredPoints" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "referralReferrerPoints" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "Referral" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "referrerId" UUID NOT NULL,
    "referredId" UUID NOT NULL,
    "code" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMPTZ(3),
    "referrerPoints" INTEGER NOT NULL DEFAULT 0,
    "referredPoints" INTEGER NOT NULL DEFAULT 0,
    "capped" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "Referral_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Referral_referredId_key" ON "Referral"("referredId");

-- CreateIndex
CREATE INDEX "Referral_programId_referrerId_completedAt_idx" ON "Referral"("programId", "referrerId", "completedAt");

-- CreateIndex
CREATE INDEX "Referral_programId_createdAt_idx" ON "Referral"("programId", "createdAt");

-- CreateIndex
CREATE INDEX "Referral_programId_completedAt_idx" ON "Referral"("programId", "completedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Customer_referralCode_key" ON "Customer"("referralCode");

-- AddForeignKey
ALTER TABLE "Referral" ADD CONSTRAINT "Referral_programId_fkey" FOREIGN KEY ("programId") REFERENCES "Program"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Referral" ADD CONSTRAINT "Referral_referrerId_fkey" FOREIGN KEY ("referrerId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Referral" ADD CONSTRAINT "Referral_referredId_fkey" FOREIGN KEY ("referredId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;
