import { writeFileSync } from "node:fs";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { noHorizontalOverflow, shot, signIn } from "./helpers";

/**
 * An owner sets a program up from nothing in the browser — the program, its settings, tiers, a reward, a pool
 * with codes, an earning flow — then changes and removes configuration: a tier's threshold, a tier, a flow
 * switched off, a pool renamed and switched off, a reward edited. Screenshots at 1440 and 390 px of the settings
 * page and each edited page. (API keys and webhooks of the same journey: e2e/hooks spec.)
 */

const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name, exact: true });

/** The page at 1440 px and at 390 px (no sideways scroll), then back to 1440. */
async function shots(page: Page, name: string) {
  await shot(page, `${name}-1440`);
  await page.setViewportSize({ width: 390, height: 844 });
  await noHorizontalOverflow(page);
  await shot(page, `${name}-390`);
  await page.setViewportSize({ width: 1440, height: 900 });
}

const drawer = (page: Page, title: string) => page.getByRole("dialog", { name: title });
const row = (table: Locator, text: string) => table.getByRole("row").filter({ hasText: text });

test("an owner sets up a program from nothing, then changes and removes its configuration", async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  page.on("dialog", (d) => void d.accept());
  await signIn(page, "owner");

  // A new program, from the settings page: the owner becomes its owner and the switcher shows it.
  await nav(page, "Settings").click();
  await expect(page).toHaveURL(/\/settings$/);
  const firstProgramSettings = page.url();
  const create = page.getByRole("form", { name: "New program" });
  await create.getByRole("button", { name: "Create program" }).click();
  await expect(create.getByRole("alert")).toContainText("a name is required");
  await create.getByLabel("Program name").fill("Harbour Coffee");
  await create.getByRole("button", { name: "Create program" }).click();
  await expect(page.getByText("Program created: you are its owner")).toBeVisible();
  // The first program's settings URL matches the same pattern: wait until the new program's page is open.
  await expect(page).not.toHaveURL(firstProgramSettings);
  await expect(page).toHaveURL(/\/dashboard\/[0-9a-f-]{36}\/settings$/);
  await expect(page.getByLabel("Program", { exact: true })).toHaveValue(page.url().split("/").at(-2)!);
  await expect(page.getByRole("option", { name: "Harbour Coffee (owner)" })).toHaveCount(1);

  // Settings: a refused value keeps what was typed, with the error at its field.
  await page.getByRole("button", { name: "Edit settings" }).click();
  const settings = drawer(page, "Edit program settings");
  await settings.getByLabel("Points expire after (months)").fill("12");
  await settings.getByLabel("Tier period (months)").fill("0");
  await settings.getByLabel("Time zone").selectOption("Europe/Madrid");
  await settings.getByLabel("Largest adjustment by support (points)").fill("500");
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(settings.getByRole("alert")).toContainText("must be at least 1");
  await expect(settings.getByLabel("Points expire after (months)")).toHaveValue("12");
  await expect(settings.getByLabel("Time zone")).toHaveValue("Europe/Madrid");
  await settings.getByLabel("Tier period (months)").fill("6");
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Settings saved")).toBeVisible();
  const readView = page.getByRole("region", { name: "Program settings" });
  await expect(readView).toContainText("12 months after earning");
  await expect(readView).toContainText("6 months");
  await expect(readView).toContainText("Europe/Madrid");
  await expect(readView).toContainText("500 points");
  await shots(page, "manager-setup-settings");

  // Tiers: three, then Gold's threshold lowered and Silver removed.
  await nav(page, "Tiers").click();
  const tierForm = page.getByRole("form", { name: "New tier" });
  for (const [name, points, factor] of [
    ["Bronze", "0", "1"],
    ["Silver", "1000", "1.25"],
    ["Gold", "5000", "1.5"],
  ]) {
    await tierForm.getByLabel("Name").fill(name!);
    await tierForm.getByLabel("Required points").fill(points!);
    await tierForm.getByLabel("Points factor").fill(factor!);
    await tierForm.getByRole("button", { name: "Create tier" }).click();
    await expect(page.getByTestId(`tier-${name}`)).toBeVisible();
  }
  const tiers = page.getByRole("table", { name: "Tiers" });
  await row(tiers, "Gold").getByRole("button", { name: "Edit Gold" }).click();
  const gold = drawer(page, 'Edit tier "Gold"');
  await gold.getByLabel("Required points").fill("4000");
  await gold.getByRole("button", { name: "Save tier" }).click();
  await expect(page.getByText("Tier saved")).toBeVisible();
  await expect(row(tiers, "Gold")).toContainText("4,000");
  await row(tiers, "Silver").getByRole("button", { name: "Remove Silver" }).click();
  await expect(page.getByText('Tier "Silver" removed')).toBeVisible();
  await expect(page.getByTestId("tier-Silver")).toHaveCount(0);
  await shots(page, "manager-setup-tiers");

  // A reward, then every field edited: name, limit per customer, minimum tier.
  await nav(page, "Rewards").click();
  const rewardForm = page.getByRole("form", { name: "New reward" });
  await rewardForm.getByLabel("Name", { exact: true }).fill("Free coffee");
  await rewardForm.getByLabel("Cost in points").fill("100");
  await rewardForm.getByRole("button", { name: "Create reward" }).click();
  await expect(page.getByText("Reward created")).toBeVisible();
  const rewards = page.getByRole("table", { name: "Rewards" });
  await row(rewards, "Free coffee").getByRole("button", { name: "Edit Free coffee" }).click();
  const reward = drawer(page, 'Edit reward "Free coffee"');
  await reward.getByLabel("Name", { exact: true }).fill("Free flat white");
  await reward.getByLabel("Redemptions per customer").fill("0");
  await reward.getByRole("button", { name: "Save reward" }).click();
  await expect(reward.getByRole("alert")).toContainText("must be at least 1");
  await expect(reward.getByLabel("Name", { exact: true })).toHaveValue("Free flat white");
  await reward.getByLabel("Redemptions per customer").fill("1");
  await reward.getByLabel("Minimum tier").selectOption({ label: "Gold or higher" });
  await reward.getByRole("button", { name: "Save reward" }).click();
  await expect(page.getByText("Reward saved")).toBeVisible();
  await expect(row(rewards, "Free flat white")).toContainText("Gold tier or higher");
  await expect(row(rewards, "Free flat white")).toContainText("at most 1 per customer");
  await shots(page, "manager-setup-rewards");

  // A pool with codes; its codes listed and searched; then renamed and switched off.
  await nav(page, "Coupon pools").click();
  const poolForm = page.getByRole("form", { name: "New coupon pool" });
  await poolForm.getByLabel("Name", { exact: true }).fill("Welcome");
  await poolForm.getByRole("button", { name: "Create pool" }).click();
  await expect(page.getByText("Coupon pool created")).toBeVisible();
  const csv = testInfo.outputPath("welcome.csv");
  writeFileSync(csv, ["code", "WELCOME-01", "WELCOME-02", "WELCOME-03", "HELLO-01"].join("\n"));
  const importer = page.getByRole("form", { name: "Import coupon codes" });
  await importer.getByLabel("CSV file (one code per line)").setInputFiles(csv);
  await importer.getByRole("button", { name: "Import" }).click();
  await expect(page.getByText("Imported 4 codes; skipped 0 duplicates")).toBeVisible();
  const pools = page.getByRole("table", { name: "Coupon pools" });
  await row(pools, "Welcome").getByRole("button", { name: "Edit Welcome" }).click();
  const pool = drawer(page, 'Edit coupon pool "Welcome"');
  await pool.getByLabel("Name", { exact: true }).fill("Welcome 2027");
  await pool.getByRole("button", { name: "Save pool" }).click();
  await expect(page.getByText("Coupon pool saved")).toBeVisible();
  await row(pools, "Welcome 2027").getByRole("button", { name: "Deactivate Welcome 2027" }).click();
  await expect(page.getByText('"Welcome 2027" deactivated')).toBeVisible();
  await expect(row(pools, "Welcome 2027")).toContainText("inactive");
  await shots(page, "manager-setup-coupons");
  await page.getByRole("link", { name: "Welcome 2027 codes" }).click();
  const codes = page.getByRole("table", { name: "Coupon codes" });
  await expect(codes.getByRole("row")).toHaveCount(5);
  await expect(row(codes, "HELLO-01")).toContainText("available");
  await page.getByLabel("Code starts with").fill("WELCOME");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(codes.getByRole("row")).toHaveCount(4);
  await expect(codes).not.toContainText("HELLO-01");
  await shots(page, "manager-setup-pool-codes");

  // An earning flow, then redefined and switched off.
  await nav(page, "Earning flows").click();
  const flowForm = page.getByRole("form", { name: "New earning flow" });
  await flowForm.getByLabel("Key").fill("visit");
  await flowForm.getByLabel("Points", { exact: true }).fill("10");
  await flowForm.getByRole("button", { name: "Create earning flow" }).click();
  await expect(page.getByText("Earning flow created")).toBeVisible();
  const flows = page.getByRole("table", { name: "Earning flows" });
  await row(flows, "visit").getByRole("button", { name: "Edit visit" }).click();
  const flow = drawer(page, 'Edit earning flow "visit"');
  await flow.getByLabel("Points", { exact: true }).fill("15");
  await flow.getByLabel("Cap per day").fill("30");
  await flow.getByRole("button", { name: "Save earning flow" }).click();
  await expect(page.getByText('"visit" saved')).toBeVisible();
  await expect(row(flows, "visit")).toContainText("15 points");
  await row(flows, "visit").getByRole("button", { name: "Deactivate visit" }).click();
  await expect(page.getByText('"visit" deactivated')).toBeVisible();
  await expect(row(flows, "visit")).toContainText("inactive");
  await shots(page, "manager-setup-earning-flows");

  // Every change is in the new program's audit log.
  await nav(page, "Audit log").click();
  const entries = page.getByRole("list", { name: "Audit entries" }).getByRole("listitem");
  for (const action of [
    "program.create",
    "program.update",
    "tier.update",
    "tier.remove",
    "reward.update",
    "coupon_pool.update",
    "earning_flow.update",
    "earning_flow.deactivate",
  ]) {
    await expect(entries.filter({ hasText: action }).first()).toBeVisible();
  }
});

test("viewers read the configuration pages: read views, no forms and no edit buttons", async ({ page }) => {
  await signIn(page, "viewer");
  for (const name of ["Settings", "Tiers", "Rewards", "Coupon pools", "Earning flows"]) {
    await nav(page, name).click();
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByRole("main").getByRole("form")).toHaveCount(0);
    await expect(page.getByRole("button", { name: /^(Edit|Remove|Deactivate|Activate)/ })).toHaveCount(0);
  }
  await nav(page, "Settings").click();
  await expect(page.getByRole("region", { name: "Program settings" })).toContainText("Tier period");
  await shot(page, "manager-setup-viewer-settings");
});
