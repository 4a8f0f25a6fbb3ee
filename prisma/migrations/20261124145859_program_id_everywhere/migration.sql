-- Every table that holds program data carries programId (issue 13, "Scale out"): the column a distributed
-- PostgreSQL (Citus) would shard by. Added nullable, backfilled from the rows they belong to, then NOT NULL.

ALTER TABLE "LoyaltyData" ADD COLUMN "programId" UUID;
UPDATE "LoyaltyData" l SET "programId" = c."programId" FROM "Customer" c WHERE c.id = l."customerId";
ALTER TABLE "LoyaltyData" ALTER COLUMN "programId" SET NOT NULL;

ALTER TABLE "CustomerTier" ADD COLUMN "programId" UUID;
UPDATE "CustomerTier" t SET "programId" = c."programId" FROM "Customer" c WHERE c.id = t."customerId";
ALTER TABLE "CustomerTier" ALTER COLUMN "programId" SET NOT NULL;

ALTER TABLE "PointLot" ADD COLUMN "programId" UUID;
UPDATE "PointLot" p SET "programId" = c."programId" FROM "Customer" c WHERE c.id = p."customerId";
ALTER TABLE "PointLot" ALTER COLUMN "programId" SET NOT NULL;

ALTER TABLE "Coupon" ADD COLUMN "programId" UUID;
UPDATE "Coupon" k SET "programId" = p."programId" FROM "CouponPool" p WHERE p.id = k."poolId";
ALTER TABLE "Coupon" ALTER COLUMN "programId" SET NOT NULL;

-- A record's scope is an api key, or a customer for the /me routes (lib/api/authenticate.ts). A record whose scope
-- no longer exists can never be replayed again: it is dropped rather than guessed.
ALTER TABLE "IdempotencyRecord" ADD COLUMN "programId" UUID;
UPDATE "IdempotencyRecord" r SET "programId" = coalesce(
  (SELECT k."programId" FROM "ApiKey" k WHERE k.id = r."apiKeyId"),
  (SELECT c."programId" FROM "Customer" c WHERE c.id = r."apiKeyId"));
DELETE FROM "IdempotencyRecord" WHERE "programId" IS NULL;
ALTER TABLE "IdempotencyRecord" ALTER COLUMN "programId" SET NOT NULL;

-- Indexes that serve program queries lead with programId.
DROP INDEX "IdempotencyRecord_apiKeyId_key_key";
CREATE UNIQUE INDEX "IdempotencyRecord_programId_apiKeyId_key_key" ON "IdempotencyRecord"("programId", "apiKeyId", "key");

DROP INDEX "LoyaltyData_balance_customerId_idx";
CREATE INDEX "LoyaltyData_programId_balance_customerId_idx" ON "LoyaltyData"("programId", "balance", "customerId");

CREATE INDEX "CustomerTier_programId_currentTierId_idx" ON "CustomerTier"("programId", "currentTierId");
