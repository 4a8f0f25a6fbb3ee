import { expect, test } from "@playwright/test";
import { seed, shot, signIn } from "./helpers";

// Issue 24: a manager builds "Gold, no purchase in 90 days" in the browser and sees the live count change as the
// conditions are added (each count checked against the API's preview of the same filter), saves it, sees the
// customer's segments on the customer page, then attaches a win-back campaign to it (condition customer.segment is
// one of that segment) and sees the campaign named on the segment's page.

const NAME = `Gold, no purchase in 90 days ${Date.now()}`;
const GOLD_ONLY = { all: [{ attr: "customer.tier", op: "eq", value: "Gold" }] };
const GOLD_IDLE = {
  all: [
    { attr: "customer.tier", op: "eq", value: "Gold" },
    { attr: "events.purchase.count", op: "eq", value: 0, window: "P90D" },
  ],
};

test("a manager builds a segment with a live count and attaches a win-back campaign to it", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const { programId, apiKey } = seed();
  const headers = { "api-key": apiKey };
  const v1 = `/v1/programs/${programId}`;
  const stamp = Date.now();
  // Two Gold customers (6,000 points): one idle, one who bought today.
  const idle = `idle.gold.${stamp}@example.com`;
  const buyer = `buying.gold.${stamp}@example.com`;
  expect(
    (
      await page.request.put(`${v1}/event-types/purchase`, {
        headers,
        data: { attributes: { total: { type: "number", required: true } } },
      })
    ).ok(),
  ).toBe(true);
  const made = await page.request.post(`${v1}/integrations/api`, {
    headers,
    data: [idle, buyer].map((email) => ({ email, feature: "user", payload: { firstName: "Gold" } })),
  });
  expect(made.status()).toBe(201);
  for (const email of [idle, buyer]) {
    const at = `${v1}/customers/${encodeURIComponent(email)}`;
    expect((await page.request.post(`${at}/balance/increase`, { headers, data: { points: 6000 } })).status()).toBe(200);
  }
  const bought = await page.request.post(`${v1}/customers/${encodeURIComponent(buyer)}/events`, {
    headers: { ...headers, "idempotency-key": `e2e-segment-${stamp}` },
    data: { type: "purchase", attributes: { total: 20 } },
  });
  expect(bought.status()).toBe(200);
  const count = async (filter: unknown) => {
    const res = await page.request.post(`${v1}/segments/preview`, { headers, data: { filter } });
    expect(res.status()).toBe(200);
    return ((await res.json()) as { count: number }).count;
  };
  const [gold, goldIdle] = [await count(GOLD_ONLY), await count(GOLD_IDLE)];
  // The buyer is Gold but not idle: adding the second condition must lower the count.
  expect(goldIdle).toBeLessThan(gold);

  await signIn(page, "manager");
  await page.goto(`/dashboard/${programId}/segments`);
  await expect(page.getByRole("heading", { level: 1, name: "Segments" })).toBeVisible();
  const builder = page.getByRole("form", { name: "New segment" });
  const shown = builder.getByTestId("segment-count");
  await builder.getByLabel("Name", { exact: true }).fill(NAME);
  await expect(builder.getByRole("complementary", { name: "Live count" })).toContainText("Add a condition");
  await expect(builder.getByText("No conditions yet: a segment needs at least one.")).toBeVisible();

  // Condition 1: Gold. The live count is the API's count for the same filter.
  await builder.getByRole("button", { name: "Add condition", exact: true }).click();
  await builder.getByLabel("Attribute of condition 1").selectOption("customer.tier");
  await builder.getByLabel("Value of condition 1").fill("Gold");
  await expect(shown).toHaveText(gold.toLocaleString("en-US"));

  // Condition 2: no purchase within 90 days. The count drops; the sample lists the idle customer, not the buyer.
  await builder.getByRole("button", { name: "Add condition", exact: true }).click();
  await builder.getByLabel("Attribute of condition 2").selectOption("events.purchase.count");
  await builder.getByLabel("Window of condition 2").fill("P90D");
  await builder.getByLabel("Operator of condition 2").selectOption("eq");
  await builder.getByLabel("Value of condition 2").fill("0");
  await expect(shown).toHaveText(goldIdle.toLocaleString("en-US"));
  await shot(page, "segment-builder");
  await builder.getByRole("button", { name: "Create segment" }).click();

  // The segment's page: its members, no campaign yet; the API has the filter as built.
  await expect(page.getByRole("heading", { level: 1, name: NAME })).toBeVisible();
  const segmentId = page.url().split("/").at(-1)!;
  const members = page.getByRole("region", { name: "Members" });
  await expect(page.getByRole("region", { name: "Campaigns using it" })).toContainText("No campaign names");
  const stored = (await (await page.request.get(`${v1}/segments/${segmentId}`, { headers })).json()) as {
    filter: unknown;
  };
  expect(stored.filter).toEqual(GOLD_IDLE);
  await page.goto(`/dashboard/${programId}/segments`);
  await expect(page.getByRole("table", { name: "Segments" })).toContainText(NAME);
  await shot(page, "segments");

  // The idle customer's page names the segment; the buyer's does not.
  const customerPage = async (email: string) => {
    const c = (await (await page.request.get(`${v1}/customers/${encodeURIComponent(email)}`, { headers })).json()) as {
      id: string;
    };
    await page.goto(`/dashboard/${programId}/customers/${c.id}`);
    return page.getByRole("region", { name: "Segments" });
  };
  const idleCard = await customerPage(idle);
  await expect(idleCard.getByRole("link", { name: NAME })).toBeVisible();
  await idleCard.scrollIntoViewIfNeeded();
  await shot(page, "customer-segments", { fullPage: false });
  await expect((await customerPage(buyer)).getByRole("link", { name: NAME })).toHaveCount(0);

  // The win-back campaign: inactivity of 90 days, for that segment's members, 200 points.
  await page.goto(`/dashboard/${programId}/campaigns`);
  const campaign = page.getByRole("form", { name: "New campaign" });
  await campaign.getByLabel("Name", { exact: true }).fill(`Win back ${stamp}`);
  await campaign.getByLabel("Trigger", { exact: true }).selectOption("lifecycle:inactivity");
  await campaign.getByLabel("Days without an event or an earn").fill("90");
  await campaign.getByRole("button", { name: "Add condition", exact: true }).click();
  await campaign.getByLabel("Attribute of condition 1").selectOption("customer.segment");
  await expect(campaign.getByLabel("Operator of condition 1")).toHaveValue("in");
  await campaign.getByLabel("Value of condition 1").selectOption({ label: NAME });
  await campaign.getByLabel("Points of effect 1").fill("200");
  await campaign.getByRole("button", { name: "Create campaign" }).click();
  await expect(page.getByRole("heading", { level: 1, name: `Win back ${stamp}` })).toBeVisible();
  const campaignId = page.url().split("/").at(-1)!;
  const draft = (
    (await (await page.request.get(`${v1}/campaigns/${campaignId}`, { headers })).json()) as {
      draft: { trigger: unknown; conditions: unknown };
    }
  ).draft;
  expect(draft.trigger).toEqual({ lifecycle: "inactivity", days: 90 });
  expect(draft.conditions).toEqual({ all: [{ attr: "customer.segment", op: "in", value: [segmentId] }] });

  // The segment's page names the campaign.
  await page.goto(`/dashboard/${programId}/segments/${segmentId}`);
  await expect(page.getByRole("region", { name: "Campaigns using it" }).getByRole("link")).toHaveText(
    `Win back ${stamp}`,
  );
  // Members by customer id, 50 a page: the shared program may list others first.
  await expect(members.getByRole("link").first()).toBeVisible();
  await expect(page.getByTestId("segment-count")).toHaveText(goldIdle.toLocaleString("en-US"));
  await shot(page, "segment-page");
});
