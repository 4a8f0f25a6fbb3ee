import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { seed, signIn } from "./helpers";

async function expectNoSeriousViolations(page: Page, name: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    serious.map(
      (v) =>
        `${name}: ${v.id} (${v.impact}) ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join(", ")}`,
    ),
  ).toEqual([]);
}

// One test per page: axe takes seconds on a large page (the API reference), so each page gets its own time budget.
for (const [name, path] of [
  ["home", "/"],
  ["docs", "/docs"],
  ["sign-in", "/signin"],
] as const) {
  test(`the ${name} page has no serious or critical accessibility violations`, async ({ page }) => {
    await page.goto(path);
    await expectNoSeriousViolations(page, name);
  });
}

test("the overview, customers and customer pages have no serious or critical accessibility violations", async ({
  page,
}) => {
  await signIn(page, "manager");
  const { programId, sampleEmail } = seed();
  await expect(page.locator(".recharts-surface").first()).toBeVisible();
  await expectNoSeriousViolations(page, "overview");
  await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(sampleEmail.slice(0, 3))}`);
  await expectNoSeriousViolations(page, "customers");
  await page.getByRole("link", { name: sampleEmail }).click();
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectNoSeriousViolations(page, "customer");
});

test("the viewer's customer page (read views, timeline) and the customers list as phone cards have no serious or critical accessibility violations", async ({
  page,
}) => {
  await signIn(page, "viewer");
  const { programId, sampleEmail } = seed();
  await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(sampleEmail)}`);
  await page.getByRole("link", { name: sampleEmail }).click();
  await expect(page.getByRole("table", { name: "Timeline" })).toBeVisible();
  await expectNoSeriousViolations(page, "customer (viewer)");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/dashboard/${programId}/customers`);
  await expect(page.getByRole("list", { name: "Customers" })).toBeVisible();
  await expectNoSeriousViolations(page, "customers (phone)");
});

for (const sub of ["tiers", "rewards", "coupons", "earning-flows", "api-keys", "webhooks", "audit", "api-reference"]) {
  test(`the manager's ${sub} page has no serious or critical accessibility violations`, async ({ page }) => {
    await signIn(page, "manager");
    const { programId } = seed();
    await page.goto(`/dashboard/${programId}/${sub}`);
    await expectNoSeriousViolations(page, sub);
  });
}

test("the owner's staff page has no serious or critical accessibility violations", async ({ page }) => {
  await signIn(page, "owner");
  const { programId } = seed();
  await page.goto(`/dashboard/${programId}/staff`);
  await expect(page.getByRole("table", { name: "Staff members" })).toBeVisible();
  await expectNoSeriousViolations(page, "staff");
  await page.goto(`/dashboard/${programId}/webhooks`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectNoSeriousViolations(page, "webhooks (owner)");
});
