-- Segment filters' event aggregates read (programId, type, occurredAt, customerId) only: with customerId in the index
-- they are index-only scans. It replaces (programId, type, occurredAt), a prefix of it, so writes keep one index.
DROP INDEX "CustomerEvent_programId_type_occurredAt_idx";
CREATE INDEX "CustomerEvent_programId_type_occurredAt_customerId_idx" ON "CustomerEvent"("programId", "type", "occurredAt", "customerId");
