import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { noHorizontalOverflow, seed, shot, signIn } from "./helpers";

// Issue 11 item 3, "Done means": a redemption is cancelled from the customer page's Redemptions card — the reason
// is required, the points come back, the code shows as cancelled and the Cancel button is gone; a viewer sees the
// card without it; a manager sets the program's cancel window in the settings form. Screenshots at 1440 and 390 px.

/** A new customer of the demo program with `points`, who redeemed the cheapest reward with stock left (via the API). */
async function customerWithRedemption(page: Page, points: number) {
  const { programId, apiKey } = seed();
  const headers = { "api-key": apiKey };
  const v1 = `/v1/programs/${programId}`;
  const email = `cancel-${Date.now()}@example.com`;
  const c = `${v1}/customers/${encodeURIComponent(email)}`;
  expect(
    (
      await page.request.post(`${v1}/integrations/api`, { headers, data: [{ email, feature: "user", payload: {} }] })
    ).status(),
  ).toBe(201);
  expect((await page.request.post(`${c}/balance/increase`, { headers, data: { points } })).status()).toBe(200);
  const rewards = (
    (await (await page.request.get(`${v1}/rewards`, { headers })).json()) as {
      data: { id: string; name: string; costPoints: number; stock: number | null }[];
    }
  ).data.filter((r) => r.costPoints <= points && r.stock !== 0);
  const reward = rewards[0]!;
  const redeemed = await page.request.post(`${c}/rewards/${reward.id}/redeem`, { headers, data: {} });
  expect(redeemed.status()).toBe(201);
  const { redemption } = (await redeemed.json()) as { redemption: { code: string; customerId: string } };
  return { programId, email, reward, code: redemption.code, customerId: redemption.customerId, points };
}

const balanceText = (points: number) => new RegExp(`^${points.toLocaleString("en-US")}\\s*points$`);

test("support cancels a redemption from the customer page: reason required, points back, code void", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, "support");
  const r = await customerWithRedemption(page, 5000);
  await page.goto(`/dashboard/${r.programId}/customers/${r.customerId}`);
  const balance = page.getByLabel("Balance", { exact: true });
  await expect(balance).toHaveText(balanceText(r.points - r.reward.costPoints));

  const card = page.getByRole("region", { name: "Redemptions" });
  const table = card.getByRole("table", { name: "Redemptions" });
  const row = table.getByRole("row").filter({ hasText: r.code });
  await expect(row).toContainText(r.reward.name);
  await expect(row).toContainText("active");
  await expect(row).toContainText("cancel until");
  await row.getByRole("button", { name: `Cancel redemption ${r.code}` }).click();

  // The confirm step names the redemption; without a reason nothing is sent.
  const form = card.getByRole("form", { name: `Cancel redemption ${r.code}` });
  await expect(form).toContainText("points go back to the customer");
  await form.getByRole("button", { name: "Cancel redemption" }).click();
  await expect(form.getByRole("alert")).toContainText("a reason is required");
  await shot(page, "redemption-cancel-confirm-1440");
  // The card with its confirm step open and an error shown: no serious or critical accessibility violation.
  const axe = await new AxeBuilder({ page }).include('section[aria-label="Redemptions"]').analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

  await form.getByLabel("Reason").fill("Order cancelled at the till");
  await form.getByRole("button", { name: "Cancel redemption" }).click();
  await expect(page.getByText(`Redemption ${r.code} cancelled`)).toBeVisible();
  await expect(form).toHaveCount(0);
  await expect(row).toContainText("cancelled");
  await expect(row).toContainText("Order cancelled at the till");
  await expect(row.getByRole("button", { name: /Cancel redemption/ })).toHaveCount(0);
  await expect(balance).toHaveText(balanceText(r.points));
  // The timeline shows the reversal and the redemption marked void.
  const timeline = page.getByRole("table", { name: "Timeline" });
  await expect(timeline.getByRole("row").filter({ hasText: "reversal" })).toContainText(`+${r.reward.costPoints}`);
  await expect(timeline.getByRole("row").filter({ hasText: `${r.code} · cancelled` })).toBeVisible();
  await shot(page, "redemption-cancel-done-1440");

  // At 390 px the card is a list of cards, and the page does not scroll sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await noHorizontalOverflow(page);
  const phoneList = card.getByRole("list", { name: "Redemptions" });
  await expect(phoneList.getByRole("listitem").filter({ hasText: r.code })).toContainText("cancelled");
  await card.scrollIntoViewIfNeeded();
  await shot(page, "redemption-cancel-390", { fullPage: false });
});

test("a viewer sees the redemptions without a Cancel button; a manager sets the cancel window", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const r = await customerWithRedemption(page, 5000);
  await signIn(page, "viewer");
  await page.goto(`/dashboard/${r.programId}/customers/${r.customerId}`);
  const card = page.getByRole("region", { name: "Redemptions" });
  await expect(card.getByRole("row").filter({ hasText: r.code })).toContainText("active");
  await expect(card.getByRole("button", { name: /Cancel redemption/ })).toHaveCount(0);

  await page.context().clearCookies();
  await signIn(page, "manager");
  await page.goto(`/dashboard/${r.programId}/settings`);
  await page.getByRole("button", { name: "Edit settings" }).click();
  const drawer = page.getByRole("dialog", { name: "Edit program settings" });
  const hours = drawer.getByLabel("Redemptions may be cancelled for (hours)");
  await expect(hours).toHaveValue("24");
  await hours.fill("-1");
  await drawer.getByRole("button", { name: "Save settings" }).click();
  await expect(drawer.getByRole("alert")).toContainText("must not be negative");
  await hours.fill("48");
  await drawer.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Settings saved")).toBeVisible();
  const readView = page.getByRole("region", { name: "Program settings" });
  await expect(readView).toContainText("48 hours after redeeming");
  await shot(page, "redemption-cancel-settings-1440");
  // Back to the default, for the other journeys of this run.
  await page.getByRole("button", { name: "Edit settings" }).click();
  await drawer.getByLabel("Redemptions may be cancelled for (hours)").fill("24");
  await drawer.getByRole("button", { name: "Save settings" }).click();
  await expect(readView).toContainText("24 hours after redeeming");
});
