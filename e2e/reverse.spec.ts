import { expect, test, type Page } from "@playwright/test";
import { noHorizontalOverflow, seed, shot, signIn } from "./helpers";

// Issue 11 item 1: support reverses an earn from the customer's timeline (a drawer with points and a reason), is told
// which points the customer had already spent and the tier they would keep at the next recalculation; asking for
// more than is left is refused at the points field; the reversal shows in the timeline with their name.

/** A new customer with an earn of 300 for an order and a spend of 250, made through the API. */
async function customerWithSpentPoints(page: Page) {
  const { programId, apiKey } = seed();
  const email = `reverse.${Date.now()}@example.com`;
  const headers = { "api-key": apiKey };
  const created = await page.request.post(`/v1/programs/${programId}/integrations/api`, {
    headers,
    data: [{ email, feature: "user", payload: { firstName: "Rita", lastName: "Reverse" } }],
  });
  expect(created.status()).toBe(201);
  const at = `/v1/programs/${programId}/customers/${encodeURIComponent(email)}`;
  const earn = await page.request.post(`${at}/balance/increase`, {
    headers,
    data: { points: 300, reason: "Order ORD-E2E", orderId: `ORD-E2E-${Date.now()}` },
  });
  expect(earn.status()).toBe(200);
  expect((await page.request.post(`${at}/balance/decrease`, { headers, data: { points: 250 } })).status()).toBe(200);
  const customer = (await (await page.request.get(at, { headers })).json()) as { id: string };
  return { programId, email, customerId: customer.id };
}

test("support reverses an earn whose points were partly spent, from the timeline", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const me = await signIn(page, "support");
  const c = await customerWithSpentPoints(page);
  await page.goto(`/dashboard/${c.programId}/customers/${c.customerId}`);
  await expect(page.getByRole("heading", { level: 1, name: c.email })).toBeVisible();

  // The spend of 250: asking to reverse 300 of it is refused at the points field, nothing changes.
  await page.getByRole("button", { name: "Reverse spend of 250 points" }).first().click();
  const spendDrawer = page.getByRole("dialog", { name: "Reverse spend of 250 points" });
  await spendDrawer.getByLabel("Points (empty: all that is left)").fill("300");
  await spendDrawer.getByLabel("Reason").fill("Charged twice");
  await spendDrawer.getByRole("button", { name: "Reverse" }).click();
  await expect(spendDrawer.getByText(/At most 250 points of this transaction are left to reverse/)).toBeVisible();
  await expect(spendDrawer.getByLabel("Points (empty: all that is left)")).toHaveValue("300");
  await shot(page, "reverse-refused", { fullPage: false });
  await spendDrawer.getByRole("button", { name: "Close" }).click();

  // The earn of 300, in full: 50 taken back, 250 already spent, 300 tier points removed.
  await page.getByRole("button", { name: "Reverse earn of 300 points" }).first().click();
  const drawer = page.getByRole("dialog", { name: "Reverse earn of 300 points" });
  await drawer.getByLabel("Reason").fill("Order returned");
  await drawer.getByRole("button", { name: "Reverse" }).click();
  const done = drawer.getByRole("status", { name: "Reversal done" });
  await expect(done).toContainText("Reversed 50 of 300 points. The balance is now 0.");
  await expect(done).toContainText("250 points could not be taken back");
  await expect(done).toContainText("300 tier points removed");
  await expect(done).toContainText("Projected tier at the next recalculation: Bronze");
  await shot(page, "reverse-done", { fullPage: false });
  await drawer.getByRole("button", { name: "Close" }).click();

  // The timeline: the reversal, by the support member, with the reason.
  const timeline = page.getByRole("table", { name: "Timeline" });
  const row = timeline.getByRole("row").filter({ hasText: "reversal" }).first();
  await expect(row).toContainText("-50");
  await expect(row).toContainText("Order returned");
  await expect(row).toContainText(me.name ?? me.email);
  await expect(page.getByLabel("Balance", { exact: true })).toHaveText(/^0\s*points$/);
  await shot(page, "reverse-timeline");
  await noHorizontalOverflow(page);

  // On a phone: the timeline's cards carry the action too.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole("button", { name: "Reverse spend of 250 points" }).last()).toBeVisible();
  await noHorizontalOverflow(page);
  await shot(page, "reverse-phone");
});
