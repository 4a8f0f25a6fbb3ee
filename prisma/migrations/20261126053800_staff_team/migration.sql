-- Issue 28: a team that manages itself (one-time links, last sign-in) and a second factor (TOTP, recovery codes).
ALTER TABLE "Program" ADD COLUMN "requireStaffTotp" BOOLEAN NOT NULL DEFAULT false;

ALTER TABLE "StaffUser" ADD COLUMN "lastSignInAt" TIMESTAMPTZ(3),
  ADD COLUMN "totpSecret" TEXT,
  ADD COLUMN "totpPendingSecret" TEXT,
  ADD COLUMN "totpEnabledAt" TIMESTAMPTZ(3),
  ADD COLUMN "totpLastStep" INTEGER;

CREATE TABLE "StaffRecoveryCode" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "staffId" UUID NOT NULL,
    "codeHash" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "usedAt" TIMESTAMPTZ(3),
    CONSTRAINT "StaffRecoveryCode_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "StaffRecoveryCode_codeHash_key" ON "StaffRecoveryCode"("codeHash");
CREATE INDEX "StaffRecoveryCode_staffId_idx" ON "StaffRecoveryCode"("staffId");
ALTER TABLE "StaffRecoveryCode" ADD CONSTRAINT "StaffRecoveryCode_staffId_fkey" FOREIGN KEY ("staffId") REFERENCES "StaffUser"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "StaffLink" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tokenHash" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "programId" UUID,
    "role" TEXT,
    "name" TEXT,
    "staffId" UUID,
    "createdById" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    CONSTRAINT "StaffLink_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "StaffLink_tokenHash_key" ON "StaffLink"("tokenHash");
CREATE INDEX "StaffLink_email_idx" ON "StaffLink"("email");
