-- CreateIndex
CREATE INDEX "Redemption_programId_createdAt_idx" ON "Redemption"("programId", "createdAt");
