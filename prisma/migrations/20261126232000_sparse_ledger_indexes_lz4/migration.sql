-- Write less for every ledger entry (bench/README.md "Less written per entry").

-- Three columns of a ledger entry are set on few entries: the earning flow that wrote it, the order it belongs to,
-- the entry a reversal reverses. Their indexes held a row for every entry, so every earn, spend and campaign entry
-- wrote three index rows that no query reads: every query through them asks for one value (`= $n`, which a NULL
-- never equals), so partial indexes answer them alike. On a large ledger, rebuilding them holds writes to
-- "LedgerEntry" for the time of the build.
DROP INDEX "LedgerEntry_customerId_earningFlowId_createdAt_idx";
CREATE INDEX "LedgerEntry_customerId_earningFlowId_createdAt_idx" ON "LedgerEntry"("customerId", "earningFlowId", "createdAt")
  WHERE "earningFlowId" IS NOT NULL;
DROP INDEX "LedgerEntry_programId_orderId_idx";
CREATE INDEX "LedgerEntry_programId_orderId_idx" ON "LedgerEntry"("programId", "orderId") WHERE "orderId" IS NOT NULL;
DROP INDEX "LedgerEntry_programId_reversesId_idx";
CREATE INDEX "LedgerEntry_programId_reversesId_idx" ON "LedgerEntry"("programId", "reversesId") WHERE "reversesId" IS NOT NULL;

-- The large values written with each request (a keyed request's stored answer, a customer event's attributes and
-- outcome, a ledger entry's metadata, a webhook event's data) are compressed with lz4 where the server has it:
-- PostgreSQL compresses a row past ~2 KB, and its default (pglz) cost a customer event's write more CPU than
-- writing the row uncompressed (~10 µs against ~4 µs per 2.3 KB answer; lz4 ~4 µs, the same size as pglz). Rows
-- written before keep pglz, which stays readable. PGlite is built without lz4: there the columns keep pglz.
DO $$
BEGIN
  ALTER TABLE "IdempotencyRecord" ALTER COLUMN "body" SET COMPRESSION lz4;
  ALTER TABLE "CustomerEvent" ALTER COLUMN "attributes" SET COMPRESSION lz4, ALTER COLUMN "outcome" SET COMPRESSION lz4;
  ALTER TABLE "LedgerEntry" ALTER COLUMN "metadata" SET COMPRESSION lz4;
  ALTER TABLE "Event" ALTER COLUMN "data" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available on this server: pglz is kept';
END
$$;
