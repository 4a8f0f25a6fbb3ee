import { expect, test, type Page } from "@playwright/test";
import { noHorizontalOverflow, seed, shot, signIn } from "./helpers";

/**
 * Referrals (issue 11 item 4): a manager sets the program's referral settings in the settings page's "Referrals"
 * card (a refused template first); a customer created through the API with another's code makes a first earn; the
 * customer page shows, for the referrer, the customer they referred and the points, and for the referred customer,
 * who referred them. Support sees the settings without an edit button. Screenshots at 1440 and 390 px.
 */

async function shots(page: Page, name: string) {
  await shot(page, `${name}-1440`);
  await page.setViewportSize({ width: 390, height: 844 });
  await noHorizontalOverflow(page);
  await shot(page, `${name}-390`);
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** Through the API, as the integrator would. */
function api(page: Page) {
  const { programId, apiKey } = seed();
  const headers = { "api-key": apiKey };
  const path = (email: string) => `/v1/programs/${programId}/customers/${encodeURIComponent(email)}`;
  return {
    async create(email: string, payload: Record<string, unknown>) {
      const res = await page.request.post(`/v1/programs/${programId}/integrations/api`, {
        headers,
        data: [{ email, feature: "user", payload }],
      });
      expect(res.status(), await res.text()).toBe(201);
    },
    async customer(email: string) {
      const res = await page.request.get(path(email), { headers });
      expect(res.status()).toBe(200);
      return (await res.json()) as {
        id: string;
        referral: string | null;
        loyaltyData: { referralLink: string | null };
      };
    },
    async earn(email: string, points: number) {
      const res = await page.request.post(`${path(email)}/balance/increase`, { headers, data: { points } });
      expect(res.status(), await res.text()).toBe(200);
    },
  };
}

test("a manager sets referral settings; the customer page shows who referred whom", async ({ page, browser }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, "manager");
  const { programId } = seed();

  await page.goto(`/dashboard/${programId}/settings`);
  const card = page.getByRole("region", { name: "Referrals" });
  await expect(card).toContainText("none (customers get no link)");
  await card.getByRole("button", { name: "Edit referral settings" }).click();
  const drawer = page.getByRole("dialog", { name: "Edit referral settings" });
  await drawer.getByLabel("Referral link").fill("ftp://shop.example.com/join");
  await drawer.getByLabel("Points for the referrer").fill("100");
  await drawer.getByLabel("Points for the referred customer").fill("50");
  await drawer.getByRole("button", { name: "Save referral settings" }).click();
  await expect(drawer.getByRole("alert").first()).toContainText("must contain {code}");
  await expect(drawer.getByLabel("Points for the referrer")).toHaveValue("100");
  await drawer.getByLabel("Referral link").fill("https://shop.example.com/join?ref={code}");
  await drawer.getByLabel("Rewarded referrals per referrer").fill("10");
  await drawer.getByRole("button", { name: "Save referral settings" }).click();
  await expect(page.getByText("Referral settings saved")).toBeVisible();
  await expect(card).toContainText("https://shop.example.com/join?ref={code}");
  await expect(card).toContainText("100 points");
  await expect(card).toContainText("10 rewarded in 30 days");
  await shots(page, "referrals-settings");

  // A referrer, a customer who comes with their code and makes a first earn.
  const client = api(page);
  const stamp = Date.now();
  const referrer = `referrer.${stamp}@example.com`;
  const referred = `referred.${stamp}@example.com`;
  await client.create(referrer, { firstName: "Rita", lastName: "Referrer" });
  const link = (await client.customer(referrer)).loyaltyData.referralLink!;
  expect(link).toMatch(/^https:\/\/shop\.example\.com\/join\?ref=[2-9A-HJKMNP-Z]{8}$/);
  const code = new URL(link).searchParams.get("ref")!;
  await client.create(referred, { firstName: "Ray", referralCode: code });
  expect((await client.customer(referred)).referral).toBe(code);
  await client.earn(referred, 30);

  await page.goto(`/dashboard/${programId}/customers/${(await client.customer(referrer)).id}`);
  const referrals = page.getByRole("region", { name: "Referrals" });
  await expect(referrals).toContainText("1 customer, 1 completed, 100 points earned");
  await expect(referrals).toContainText(link);
  const table = referrals.getByRole("table", { name: "Customers referred" });
  await expect(table.getByRole("row").filter({ hasText: referred })).toContainText("completed");
  await shots(page, "referrals-customer-referrer");

  await referrals.getByRole("link", { name: referred }).first().click();
  await expect(page.getByRole("region", { name: "Referrals" })).toContainText(referrer);
  await expect(page.getByRole("region", { name: "Referrals" })).toContainText(code);
  await shots(page, "referrals-customer-referred");

  // The reports count the period's referrals.
  await page.goto(`/dashboard/${programId}`);
  const figures = page.getByRole("region", { name: "Referrals of the period" });
  await expect(figures).toContainText("Referrals completed");
  await expect(figures).toContainText("Referral points awarded");
  await shot(page, "referrals-reports-1440");

  // Support reads the settings but has no edit button.
  const support = await browser.newPage();
  await signIn(support, "support");
  await support.goto(`/dashboard/${programId}/settings`);
  const supportCard = support.getByRole("region", { name: "Referrals" });
  await expect(supportCard).toContainText("https://shop.example.com/join?ref={code}");
  await expect(supportCard.getByRole("button", { name: "Edit referral settings" })).toHaveCount(0);
  await support.close();
});
