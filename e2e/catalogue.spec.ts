import { writeFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { seed, shot, signIn, fromPage } from "./helpers";

const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name, exact: true });
const noSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test("a manager creates and deactivates a reward, imports a CSV of codes into a new pool and creates an earning flow", async ({
  page,
}, testInfo) => {
  await signIn(page, "manager");

  // Rewards: create, then switch off and restock from the table row.
  await nav(page, "Rewards").click();
  await expect(page.getByRole("heading", { level: 1, name: "Rewards" })).toBeVisible();
  const form = page.getByRole("form", { name: "New reward" });
  await form.getByLabel("Name", { exact: true }).fill("Enamel mug");
  await form.getByLabel("Cost in points").fill("0");
  await form.getByRole("button", { name: "Create reward" }).click();
  await expect(form.getByRole("alert").filter({ hasText: "must be at least 1" })).toBeVisible();
  await form.getByLabel("Cost in points").fill("750");
  await form.getByLabel("Stock", { exact: true }).fill("25");
  await form.getByLabel("Description").fill("A white enamel mug with the logo");
  await form.getByRole("button", { name: "Create reward" }).click();
  await expect(page.getByText("Reward created")).toBeVisible();
  const table = page.getByRole("table", { name: "Rewards" });
  const row = table.getByRole("row").filter({ hasText: "Enamel mug" });
  await expect(row).toContainText("active");
  await expect(row.getByRole("cell").nth(2)).toHaveText("25");
  await row.getByRole("button", { name: "Deactivate Enamel mug" }).click();
  await expect(page.getByText('"Enamel mug" deactivated')).toBeVisible();
  await expect(row.getByRole("button", { name: "Activate Enamel mug" })).toBeVisible();
  await expect(row).toContainText("inactive");
  // Every field is edited in the reward's drawer (read view + edit).
  await row.getByRole("button", { name: "Edit Enamel mug" }).click();
  const drawer = page.getByRole("dialog", { name: 'Edit reward "Enamel mug"' });
  await drawer.getByLabel("Stock", { exact: true }).fill("10");
  await drawer.getByLabel("Cost in points").fill("800");
  await drawer.getByRole("button", { name: "Save reward" }).click();
  await expect(page.getByText("Reward saved")).toBeVisible();
  await page.reload();
  await expect(row.getByRole("cell").nth(1)).toHaveText("800");
  await expect(row.getByRole("cell").nth(2)).toHaveText("10");
  await expect(row).toContainText("inactive");
  await shot(page, "catalogue-rewards");

  // Coupon pools: create one, then import a CSV with a header, blank lines and duplicates in chunks.
  await nav(page, "Coupon pools").click();
  await expect(page.getByRole("heading", { level: 1, name: "Coupon pools" })).toBeVisible();
  const poolForm = page.getByRole("form", { name: "New coupon pool" });
  await poolForm.getByLabel("Name", { exact: true }).fill("Spring 10% off");
  await poolForm.getByLabel("Valid for (days)").fill("30");
  await poolForm.getByRole("button", { name: "Create pool" }).click();
  await expect(page.getByText("Coupon pool created")).toBeVisible();
  const pool = page.getByRole("table", { name: "Coupon pools" }).getByRole("row").filter({ hasText: "Spring 10% off" });
  await expect(pool).toContainText("30 days");

  const importer = page.getByRole("form", { name: "Import coupon codes" });
  await importer.getByLabel("Pool").selectOption({ label: "Spring 10% off" });
  // A bad line stops everything before a request is sent.
  const bad = testInfo.outputPath("bad.csv");
  writeFileSync(bad, "code\nSPRING-1\nnot a code!\n");
  await importer.getByLabel("CSV file (one code per line)").setInputFiles(bad);
  await importer.getByRole("button", { name: "Import" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Line 3" })).toContainText("Nothing was imported");

  const codes = Array.from({ length: 6200 }, (_, i) => `SPRING-${String(i).padStart(5, "0")}`);
  const lines = ["code", ...codes, "", "SPRING-00001", "SPRING-00002", '"SPRING-00003"', ""];
  const csv = testInfo.outputPath("spring-codes.csv");
  writeFileSync(csv, lines.join("\r\n"));
  await importer.getByLabel("CSV file (one code per line)").setInputFiles(csv);
  await importer.getByRole("button", { name: "Import" }).click();
  const progress = page.getByRole("progressbar", { name: "Codes imported" });
  await expect(progress).toBeVisible();
  await expect(progress).toHaveAttribute("max", "6203");
  await expect(progress).toHaveAttribute("value", "6203");
  await expect(page.getByTestId("import-progress")).toContainText(
    "6,203 / 6,203 codes sent · 6,200 imported, 3 duplicates skipped · done",
  );
  await expect(page.getByText("Imported 6,200 codes; skipped 3 duplicates")).toBeVisible();
  await expect(pool.getByRole("cell").nth(2)).toHaveText("6,200");
  await expect(pool.getByRole("cell").nth(3)).toHaveText("6,200");
  await expect(pool.getByRole("cell").nth(4)).toHaveText("0");
  await shot(page, "catalogue-coupons");

  // Earning flows: the CLI's rules (a per-unit flow needs its param), then a flow earning per unit of amount.
  await nav(page, "Earning flows").click();
  await expect(page.getByRole("heading", { level: 1, name: "Earning flows" })).toBeVisible();
  const flowForm = page.getByRole("form", { name: "New earning flow" });
  await flowForm.getByLabel("Key").fill("Store Purchase");
  await flowForm.getByLabel("Points per unit of a param").check();
  await flowForm.getByLabel("Points per unit", { exact: true }).fill("0.5");
  await flowForm.getByRole("button", { name: "Create earning flow" }).click();
  await expect(flowForm.getByRole("alert").filter({ hasText: "must be lower-case" })).toBeVisible();
  await expect(flowForm.getByRole("alert").filter({ hasText: "points per unit needs a param" })).toBeVisible();
  await flowForm.getByLabel("Key").fill("store-purchase");
  await flowForm.getByLabel("Name").fill("Purchase in store");
  await flowForm.getByLabel("Param", { exact: true }).fill("amount");
  // The parameters a run may send: amount (bounded) and an optional store number; a wrong declaration first.
  await flowForm.getByRole("button", { name: "Add parameter" }).click();
  await flowForm.getByRole("button", { name: "Add parameter" }).click();
  const amount = flowForm.getByRole("group", { name: "Parameter 1" });
  const store = flowForm.getByRole("group", { name: "Parameter 2" });
  await amount.getByLabel("Parameter 1 name").fill("amount");
  await amount.getByLabel("Minimum").fill("5");
  await amount.getByLabel("Maximum").fill("2");
  await store.getByLabel("Parameter 2 name").fill("amount");
  await flowForm.getByRole("button", { name: "Create earning flow" }).click();
  await expect(amount.getByRole("alert").filter({ hasText: "must not be less than min" })).toBeVisible();
  await expect(store.getByRole("alert").filter({ hasText: "is declared twice" })).toBeVisible();
  await amount.getByLabel("Minimum").fill("1");
  await amount.getByLabel("Maximum").fill("5000");
  await store.getByLabel("Parameter 2 name").fill("store");
  await store.getByLabel("Required").uncheck();
  await flowForm.getByLabel("Cap per day").fill("500");
  await flowForm.getByLabel("Cap in total").fill("10000");
  await flowForm.getByRole("button", { name: "Create earning flow" }).click();
  await expect(page.getByText("Earning flow created")).toBeVisible();
  await expect(flowForm.getByRole("group", { name: "Parameter 1" })).toHaveCount(0);
  const flow = page
    .getByRole("table", { name: "Earning flows" })
    .getByRole("row")
    .filter({ hasText: "store-purchase" });
  await expect(flow).toContainText("0.5 points per amount");
  await expect(flow).toContainText("amount 1–5,000");
  await expect(flow).toContainText("store 0–1,000,000,000 (optional)");
  await expect(flow).toContainText("500 a day");
  await expect(flow).toContainText("10,000 in total");
  await flowForm.getByLabel("Key").fill("signup-bonus");
  await flowForm.getByLabel("Points", { exact: true }).fill("100");
  await flowForm.getByLabel("Once per customer").check();
  await flowForm.getByRole("button", { name: "Create earning flow" }).click();
  const bonus = page.getByRole("table", { name: "Earning flows" }).getByRole("row").filter({ hasText: "signup-bonus" });
  await expect(bonus).toContainText("100 points");
  await expect(bonus).toContainText("once per customer");
  await shot(page, "catalogue-earning-flows");

  // Every write above is in the audit log, the import by its counts.
  await nav(page, "Audit log").click();
  const entries = page.getByRole("list", { name: "Audit entries" }).getByRole("listitem");
  for (const action of [
    "reward.create",
    "reward.update",
    "coupon_pool.create",
    "coupon_pool.import",
    "earning_flow.create",
  ]) {
    await expect(entries.filter({ hasText: action }).first()).toBeVisible();
  }
  await expect(page.locator("body")).not.toContainText("SPRING-00001");
});

test("on a phone the catalogue pages fit the screen and their tables scroll sideways", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "manager");
  const { programId } = seed();
  for (const sub of ["rewards", "coupons", "earning-flows"]) {
    await page.goto(`/dashboard/${programId}/${sub}`);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(await noSideways(page)).toBeLessThanOrEqual(1);
    await shot(page, `catalogue-mobile-${sub}`);
  }
});

test("viewers see the catalogue without the manage controls, and their forged writes are refused", async ({ page }) => {
  await signIn(page, "viewer");
  const { programId } = seed();
  await nav(page, "Rewards").click();
  await expect(page.getByRole("table", { name: "Rewards" })).toBeVisible();
  await expect(page.getByRole("form", { name: "New reward" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^(Deactivate|Activate|Save)/ })).toHaveCount(0);
  await nav(page, "Coupon pools").click();
  await expect(page.getByRole("table", { name: "Coupon pools" })).toBeVisible();
  await expect(page.getByRole("form", { name: "Import coupon codes" })).toHaveCount(0);
  await expect(page.getByRole("form", { name: "New coupon pool" })).toHaveCount(0);
  await nav(page, "Earning flows").click();
  await expect(page.getByRole("heading", { level: 1, name: "Earning flows" })).toBeVisible();
  await expect(page.getByRole("form", { name: "New earning flow" })).toHaveCount(0);
  await shot(page, "catalogue-viewer-earning-flows");
  const base = `/api/staff/${programId}`;
  for (const res of [
    await page.request.post(`${base}/rewards`, { headers: fromPage(page), data: { name: "Forged", costPoints: 1 } }),
    await page.request.post(`${base}/coupon-pools`, { headers: fromPage(page), data: { name: "Forged" } }),
    await page.request.post(`${base}/earning-flows`, {
      headers: fromPage(page),
      data: { key: "forged", points: 1000 },
    }),
  ]) {
    expect(res.status()).toBe(403);
  }
});

test("a program without rewards, pools or flows shows empty states", async ({ page }) => {
  // The demo owner is a viewer of the second program, which has none of them.
  await signIn(page, "owner");
  const { secondProgram } = seed();
  for (const [sub, text] of [
    ["rewards", "No rewards yet."],
    ["coupons", "No coupon pools yet."],
    ["earning-flows", "No earning flows yet"],
  ] as const) {
    await page.goto(`/dashboard/${secondProgram!.programId}/${sub}`);
    await expect(page.getByText(text)).toBeVisible();
  }
  await shot(page, "catalogue-empty-earning-flows");
});
