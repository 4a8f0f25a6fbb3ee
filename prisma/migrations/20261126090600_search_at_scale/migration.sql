-- The dashboard search's name matches at 1,000,000 customers (lib/staff/queries/customers/search.ts `rankedWaves`):
-- exact and prefix matches of a first or last name compare lower(name) (what ILIKE compares), and each query walks
-- one of these btrees in the order of its page (the matched name, the other name, the customer id), so "smith"
-- (50,000 matches) reads one page of the index instead of every smith. text_pattern_ops: byte order, which serves
-- LIKE 'prefix%' as a range scan whatever the database's collation. Expression indexes, which prisma/schema.prisma
-- cannot describe (like "Customer_programId_deletedAt_idx"): written here by hand.
CREATE INDEX "UserData_programId_firstName_lower_idx" ON "UserData" ("programId", lower("firstName") text_pattern_ops, lower("lastName") text_pattern_ops, "customerId");

CREATE INDEX "UserData_programId_lastName_lower_idx" ON "UserData" ("programId", lower("lastName") text_pattern_ops, lower("firstName") text_pattern_ops, "customerId");
