import { expect, test, type Page } from "@playwright/test";
import { shot, signIn } from "./helpers";

/**
 * An owner makes a test copy of the demo program from its settings page: the new program opens with the amber Test
 * program banner (and its clock) on every page, and the demo program's tiers were copied. Screenshot at 1440 px.
 */

const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name, exact: true });

test("an owner makes a test copy: the banner shows on every page, the configuration is copied", async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, "owner");
  await nav(page, "Tiers").click();
  await expect(page).toHaveURL(/\/tiers$/);
  await expect(page.getByRole("table").first().getByRole("row").nth(1)).toBeVisible();
  const liveTiers = await page.getByRole("table").first().getByRole("row").count();
  await expect(page.getByRole("status", { name: "Test program" })).toHaveCount(0);

  await nav(page, "Settings").click();
  await expect(page).toHaveURL(/\/settings$/);
  const liveSettings = page.url();
  const copy = page.getByRole("form", { name: "Create a test copy" });
  await copy.getByRole("button", { name: "Create a test copy" }).click();
  await expect(page).not.toHaveURL(liveSettings);
  await expect(page).toHaveURL(/\/dashboard\/[0-9a-f-]{36}\/settings$/);
  const banner = page.getByRole("status", { name: "Test program" });
  await expect(banner).toBeVisible();
  await expect(banner).toContainText("lk_test_");
  await expect(banner.locator("time")).toHaveAttribute("datetime", /^\d{4}-\d\d-\d\dT/);
  await shot(page, "test-copy-settings-1440", { fullPage: false });

  await nav(page, "Tiers").click();
  await expect(page.getByRole("status", { name: "Test program" })).toBeVisible();
  await expect(page.getByRole("table").first().getByRole("row")).toHaveCount(liveTiers);
});
