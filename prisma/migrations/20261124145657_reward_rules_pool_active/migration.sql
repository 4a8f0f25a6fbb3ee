-- AlterTable
ALTER TABLE "CouponPool" ADD COLUMN     "active" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "Reward" ADD COLUMN     "minTierId" UUID,
ADD COLUMN     "perCustomerLimit" INTEGER;

-- A per-customer limit is at least one redemption (null: no limit).
ALTER TABLE "Reward" ADD CONSTRAINT "Reward_perCustomerLimit_check" CHECK ("perCustomerLimit" IS NULL OR "perCustomerLimit" >= 1);

-- AddForeignKey
ALTER TABLE "Reward" ADD CONSTRAINT "Reward_minTierId_fkey" FOREIGN KEY ("minTierId") REFERENCES "Tier"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
