-- The dashboard search's trigram indexes (PGlite loads the extension in lib/db/pglite-extensions.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- AlterTable
ALTER TABLE "UserData" ADD COLUMN     "phoneDigits" TEXT,
ADD COLUMN     "phoneReversed" TEXT;

-- The phone's digits (and the same reversed, for suffix matches), kept by the database whoever writes the phone
-- (API, dashboard, CLI, import), so the search matches "+34 612 34 56 78" when "612345678" is typed.
CREATE FUNCTION "UserData_phoneDigits"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."phoneDigits" := nullif(regexp_replace(coalesce(NEW.phone, ''), '\D', '', 'g'), '');
  NEW."phoneReversed" := reverse(NEW."phoneDigits");
  RETURN NEW;
END $$;
CREATE TRIGGER "UserData_phoneDigits" BEFORE INSERT OR UPDATE OF phone ON "UserData"
  FOR EACH ROW EXECUTE FUNCTION "UserData_phoneDigits"();
UPDATE "UserData" SET phone = phone WHERE phone IS NOT NULL;

-- CreateTable
CREATE TABLE "CustomerNote" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "programId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "staffId" UUID,
    "body" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CustomerNote_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CustomerNote_customerId_createdAt_id_idx" ON "CustomerNote"("customerId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "AuditLog_entityId_createdAt_idx" ON "AuditLog"("entityId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Customer_email_trgm_idx" ON "Customer" USING GIN ("email" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "UserData_firstName_trgm_idx" ON "UserData" USING GIN ("firstName" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "UserData_lastName_trgm_idx" ON "UserData" USING GIN ("lastName" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "UserData_programId_phoneDigits_idx" ON "UserData"("programId", "phoneDigits" text_pattern_ops);

-- CreateIndex
CREATE INDEX "UserData_programId_phoneReversed_idx" ON "UserData"("programId", "phoneReversed" text_pattern_ops);

-- AddForeignKey
ALTER TABLE "CustomerNote" ADD CONSTRAINT "CustomerNote_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomerNote" ADD CONSTRAINT "CustomerNote_staffId_fkey" FOREIGN KEY ("staffId") REFERENCES "StaffUser"("id") ON DELETE SET NULL ON UPDATE CASCADE;
