-- 16 slices per campaign budget instead of 8 (lib/domain/campaigns/budget.ts `SLICES`): an event spends from a slice
-- that no concurrent statement holds, and a slice stays held until its event has committed, so a budget needs more
-- slices than the connections of a pool (10 by default). The campaigns with slices get slices 8 to 15 (room 0); new
-- ones get all 16 when created; a campaign without slices (a test program's copy) still spends on its row.
INSERT INTO "CampaignBudgetSlice" ("programId", "campaignId", "slice", "room")
SELECT c."programId", c.id, s, 0 FROM "Campaign" c CROSS JOIN generate_series(8, 15) AS s
WHERE EXISTS (SELECT 1 FROM "CampaignBudgetSlice" x WHERE x."campaignId" = c.id)
ON CONFLICT DO NOTHING;
