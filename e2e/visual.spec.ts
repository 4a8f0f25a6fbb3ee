import { expect, test } from "@playwright/test";
import { noHorizontalOverflow, seed, shot, signIn } from "./helpers";

// Every dashboard page at a desktop and a phone width: it renders its heading and never scrolls sideways (tables
// scroll inside their own box). The screenshots (e2e/screenshots/visual-*.png) are for comparing the look before
// and after a change.

const PAGES = [
  "",
  "customers",
  "rewards",
  "coupons",
  "tiers",
  "earning-flows",
  "campaigns",
  "webhooks",
  "staff",
  "api-keys",
  "audit",
  "settings",
];
const WIDTHS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

test("every dashboard page at 1440 px and 390 px", async ({ page }) => {
  test.setTimeout(180_000);
  const { programId, sampleEmail } = seed();
  await signIn(page, "owner");
  for (const size of WIDTHS) {
    await page.setViewportSize(size);
    for (const sub of PAGES) {
      await page.goto(`/dashboard/${programId}/${sub}`);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await noHorizontalOverflow(page);
      await shot(page, `visual-${size.name}-${sub || "overview"}`);
    }
    await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(sampleEmail)}`);
    await page.getByRole("link", { name: sampleEmail }).click();
    await expect(page.getByRole("heading", { level: 1, name: sampleEmail })).toBeVisible();
    await noHorizontalOverflow(page);
    await shot(page, `visual-${size.name}-customer`);
  }
});
