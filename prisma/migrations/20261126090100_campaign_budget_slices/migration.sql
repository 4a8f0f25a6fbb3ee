-- A campaign's budget in slices (lib/domain/campaigns/budget.ts): room taken from the campaign's budget ahead of
-- time ("Campaign"."budgetUsed" counts it), which the events of the hot path spend one slice each, so that they do
-- not all queue on the campaign's row. Points given = "budgetUsed" - the slices' room.

-- CreateTable
CREATE TABLE "CampaignBudgetSlice" (
    "programId" UUID NOT NULL,
    "campaignId" UUID NOT NULL,
    "slice" INTEGER NOT NULL,
    "room" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "CampaignBudgetSlice_pkey" PRIMARY KEY ("campaignId","slice"),
    CONSTRAINT "CampaignBudgetSlice_room_check" CHECK ("room" >= 0)
);

-- The slices of the campaigns there are (new ones get theirs when created; a campaign
-- without them spends its budget on its own row, as before).
INSERT INTO "CampaignBudgetSlice" ("programId", "campaignId", "slice", "room")
SELECT c."programId", c.id, s, 0 FROM "Campaign" c CROSS JOIN generate_series(0, 7) AS s;
