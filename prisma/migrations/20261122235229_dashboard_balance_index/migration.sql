-- CreateIndex
CREATE INDEX "LoyaltyData_balance_customerId_idx" ON "LoyaltyData"("balance", "customerId");
