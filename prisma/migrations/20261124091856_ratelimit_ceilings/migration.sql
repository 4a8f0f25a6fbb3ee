-- (The diff also dropped and re-created Customer_programId_email_prefix_idx, a raw-ops index the engine cannot compare; left out.)
-- AlterTable
ALTER TABLE "Program" ADD COLUMN     "adjustCeilingManager" INTEGER DEFAULT 1000000,
ADD COLUMN     "adjustCeilingSupport" INTEGER DEFAULT 10000;

-- CreateTable
CREATE TABLE "RateBucket" (
    "id" TEXT NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "at" DOUBLE PRECISION NOT NULL,
    "allowed" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "RateBucket_pkey" PRIMARY KEY ("id")
);
