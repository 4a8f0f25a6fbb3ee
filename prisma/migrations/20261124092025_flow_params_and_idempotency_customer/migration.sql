-- AlterTable
ALTER TABLE "EarningFlow" ADD COLUMN     "params" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "IdempotencyRecord" ADD COLUMN     "customerId" UUID;

-- CreateIndex
CREATE INDEX "IdempotencyRecord_customerId_idx" ON "IdempotencyRecord"("customerId");

-- Existing flows declare what they use today: a per-unit flow its numeric param (0 to 1,000,000,000, required, as
-- runs were checked before); a fixed-points flow nothing, so runs that sent free-form params are refused from now on.
UPDATE "EarningFlow"
SET "params" = jsonb_build_array(jsonb_build_object('name', "param", 'type', 'number', 'min', 0, 'max', 1000000000, 'required', true))
WHERE "param" IS NOT NULL AND "pointsPerUnit" IS NOT NULL;
