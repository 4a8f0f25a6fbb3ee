-- The customers list, newest first, orders by ("createdAt" DESC, id DESC): with the id in the index a page reads
-- its rows and no more, however many customers share a createdAt (the 1,000,000-customer bench has 700 distinct
-- values: the former index made each page sort ~1,400 tied rows). Replaces the (programId, createdAt) index, which
-- this one serves in full. (db:migration also proposed dropping and recreating the hand-written text_pattern_ops
-- indexes and the Event sequence: refused, as docs/operating.md says.)

-- DropIndex
DROP INDEX "Customer_programId_createdAt_idx";

-- CreateIndex
CREATE INDEX "Customer_programId_createdAt_id_idx" ON "Customer"("programId", "createdAt", "id");
