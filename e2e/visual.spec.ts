import { expect, test } from "@playwright/test";
import { seed, shot, signIn } from "./helpers";

// Screenshots of every dashboard page at a desktop and a phone width, for comparing the look before and after
// a change (e2e/screenshots/visual-*.png). No assertions beyond "the page rendered", so it runs only on request:
// E2E_SHOTS=1 npx playwright test e2e/visual.spec.ts
test.skip(!process.env.E2E_SHOTS, "set E2E_SHOTS=1 to take the visual screenshots");

const PAGES = [
  "",
  "customers",
  "rewards",
  "coupons",
  "tiers",
  "earning-flows",
  "webhooks",
  "staff",
  "api-keys",
  "audit",
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
      await shot(page, `visual-${size.name}-${sub || "overview"}`);
    }
    await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(sampleEmail)}`);
    await page.getByRole("link", { name: sampleEmail }).click();
    await expect(page.getByRole("heading", { level: 1, name: sampleEmail })).toBeVisible();
    await shot(page, `visual-${size.name}-customer`);
  }
});
