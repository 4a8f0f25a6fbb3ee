import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { noHorizontalOverflow, seed, shot, signIn } from "./helpers";

// Coming from JeriCommerce (docs/integrating.md): an owner revokes every customer token of the program from the API
// keys page. A token fetched through the JeriCommerce alias works on /me before the click and is refused (401) after
// it; a new one works. Screenshots at 1440 and 390 px; no serious or critical axe violations on the owner's page.

test("an owner revokes every customer token from the API keys page", async ({ page, browser }) => {
  const { programId, apiKey, sampleEmail } = seed();
  const tokenFor = async () => {
    const res = await page.request.get(
      `/v1/programs/${programId}/customers/token?email=${encodeURIComponent(sampleEmail)}&expires_in=604800`,
      { headers: { "api-key": apiKey } },
    );
    expect(res.status()).toBe(200);
    return ((await res.json()) as { accessToken: string }).accessToken;
  };
  const me = (token: string) =>
    page.request.get(`/v1/programs/${programId}/me`, { headers: { authorization: `Bearer ${token}` } });
  const old = await tokenFor();
  expect((await me(old)).status()).toBe(200);

  await signIn(page, "owner");
  await page.goto(`/dashboard/${programId}/api-keys`);
  const card = page.getByRole("region", { name: "Customer tokens" });
  await expect(card).toBeVisible();
  for (const size of [
    { label: "desktop", width: 1440, height: 900 },
    { label: "phone", width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    await noHorizontalOverflow(page);
    await shot(page, `migration-${size.label}-revoke-tokens`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  // The owner's view of the page (a11y.spec.ts checks the manager's, without this card).
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

  let asked = "";
  page.once("dialog", (dialog) => {
    asked = dialog.message();
    void dialog.accept();
  });
  await card.getByRole("button", { name: "Revoke all customer tokens" }).click();
  await expect(page.getByText("Every customer token revoked")).toBeVisible();
  expect(asked).toMatch(/Revoke every customer token/);
  expect((await me(old)).status()).toBe(401);
  expect((await me(await tokenFor())).status()).toBe(200);

  // A manager manages keys but not this: the card is not shown.
  const other = await browser.newContext();
  const managerPage = await other.newPage();
  await signIn(managerPage, "manager");
  await managerPage.goto(`/dashboard/${programId}/api-keys`);
  await expect(managerPage.getByRole("heading", { name: "API keys" })).toBeVisible();
  await expect(managerPage.getByRole("region", { name: "Customer tokens" })).toHaveCount(0);
  await other.close();
});
