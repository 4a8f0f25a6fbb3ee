-- AlterTable
ALTER TABLE "Program" ADD COLUMN     "timeZone" TEXT NOT NULL DEFAULT 'UTC';
