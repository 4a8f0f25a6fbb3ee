-- The version a staff edit is made from (If-Match, lib/staff/versions.ts) for the edited rows that had none.
ALTER TABLE "ApiKey" ADD COLUMN "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "CouponPool" ADD COLUMN "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "Webhook" ADD COLUMN "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "StaffMembership" ADD COLUMN "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- Addresses an account signed in from: its lock does not hold back a correct password from them.
CREATE TABLE "StaffTrustedAddress" (
    "email" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "lastSignInAt" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "StaffTrustedAddress_pkey" PRIMARY KEY ("email","address")
);
