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

test("main pages have no serious or critical accessibility violations", async ({ page }) => {
  // Thirteen pages, two of them the whole API reference (every operation's examples, headers and error codes):
  // axe alone takes 10–15 s on each of those on a busy 2-core machine.
  test.setTimeout(120_000);
  await page.goto("/");
  await expectNoSeriousViolations(page, "home");
  await page.goto("/docs");
  await expectNoSeriousViolations(page, "docs");
  await page.goto("/signin");
  await expectNoSeriousViolations(page, "sign-in");

  await signIn(page, "manager");
  const { programId, sampleEmail } = seed();
  await expect(page.locator(".recharts-surface").first()).toBeVisible();
  await expectNoSeriousViolations(page, "overview");
  await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(sampleEmail.slice(0, 3))}`);
  await expectNoSeriousViolations(page, "customers");
  await page.getByRole("link", { name: sampleEmail }).click();
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectNoSeriousViolations(page, "customer");
  for (const sub of [
    "tiers",
    "rewards",
    "coupons",
    "earning-flows",
    "api-keys",
    "webhooks",
    "audit",
    "api-reference",
  ]) {
    await page.goto(`/dashboard/${programId}/${sub}`);
    await expectNoSeriousViolations(page, sub);
  }
});

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
