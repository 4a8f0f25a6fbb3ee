import { expect, test } from "@playwright/test";
import { noHorizontalOverflow, seed, shot, signIn } from "./helpers";

// The customer page's Balance explained card (issue 11 item 5) shows what GET …/balance answers: open lots adding
// up to the balance, points expiring, tier points of the period with what counts and what does not.

test("the customer page explains a balance: the lots that make it, what expires, what counts for the tier", async ({
  page,
  request,
}) => {
  const { programId, apiKey } = seed();
  // Points expire after 2 months for this test (restored at the end), so the chart has something to show.
  await signIn(page, "owner");
  await page.goto(`/dashboard/${programId}/settings`);
  const setExpiry = async (months: string) => {
    await page.getByRole("button", { name: "Edit settings" }).click();
    const settings = page.getByRole("dialog", { name: "Edit program settings" });
    const before = await settings.getByLabel("Points expire after (months)").inputValue();
    await settings.getByLabel("Points expire after (months)").fill(months);
    await settings.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Settings saved").first()).toBeVisible();
    await expect(settings).toHaveCount(0);
    return before;
  };
  const expiryBefore = await setExpiry("2");

  const email = `explained.${Date.now()}@example.com`;
  const v1 = `/v1/programs/${programId}`;
  const customer = `${v1}/customers/${encodeURIComponent(email)}`;
  const headers = { "api-key": apiKey };
  const created = await request.post(`${v1}/integrations/api`, {
    headers,
    data: [{ email, feature: "user", payload: { firstName: "Ada", lastName: "Explained" } }],
  });
  expect(created.status()).toBe(201);
  for (const [move, points, reason] of [
    ["increase", 500, "Order #1"],
    ["increase", 700, "Order #2"],
    ["decrease", 300, "Spent in store"],
  ] as const) {
    const res = await request.post(`${customer}/balance/${move}`, { headers, data: { points, reason } });
    expect(res.status()).toBe(200);
  }
  const api = await (await request.get(`${customer}/balance`, { headers })).json();
  expect(api.balance).toBe(900);
  expect(api.tier.points).toBe(1200);

  await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(email)}`);
  await page.getByRole("link", { name: email }).click();
  const card = page.getByRole("region", { name: "Balance explained" });
  await expect(card).toContainText("900 points in 2 open lots");
  const lots = card.getByRole("table", { name: "Open lots" });
  await expect(lots.getByRole("row")).toHaveCount(3);
  await expect(lots.getByRole("row").nth(1)).toContainText("Order #1");
  await expect(lots.getByRole("row").nth(1)).toContainText("200");
  await expect(lots.getByRole("row").nth(1)).toContainText("of 500");
  await expect(card).toContainText("900 points in the 2 lots listed = 900.");
  await expect(lots.getByRole("row").nth(2)).toContainText("Order #2");
  // Everything earned today expires in two months: within 90 days, and in one bar of the chart.
  await expect(card.getByRole("definition").nth(2)).toHaveText("900");
  const expiryMonth = new Date();
  expiryMonth.setUTCDate(1);
  expiryMonth.setUTCMonth(expiryMonth.getUTCMonth() + 2);
  const label = expiryMonth.toLocaleString("en-GB", { month: "short", year: "2-digit", timeZone: "UTC" });
  await expect(
    card.getByRole("img", { name: `Bar chart of points expiring per month over the next 12 months: ${label} 900` }),
  ).toBeVisible();
  await expect(card).toContainText("1,200 tier points");
  await expect(card.getByRole("list", { name: "What counts towards the tier" })).toContainText("+1,200");
  await expect(card.getByRole("list", { name: "What does not count" })).toContainText("Spent");
  await expect(card.getByRole("list", { name: "What does not count" })).toContainText("−300");
  await card.scrollIntoViewIfNeeded();
  await page.mouse.move(0, 0);
  await card.screenshot({ path: "e2e/screenshots/balance-explained-card-1440.png" });
  await shot(page, "balance-explained-1440");

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(card).toBeVisible();
  await noHorizontalOverflow(page);
  await card.screenshot({ path: "e2e/screenshots/balance-explained-card-390.png" });

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/dashboard/${programId}/settings`);
  await setExpiry(expiryBefore);
});
