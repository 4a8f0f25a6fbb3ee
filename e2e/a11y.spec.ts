import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { seed, signIn } from "./helpers";

async function expectNoSeriousViolations(page: Page, name: string, exclude?: string) {
  const axe = new AxeBuilder({ page });
  const results = await (exclude ? axe.exclude(exclude) : axe).analyze();
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
    // The reference shows a curl and a fetch example per operation: axe needs more than a minute on a busy machine.
    if (name === "docs") test.slow();
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

test("the reports page, with a custom period and its data tables open, has no serious or critical accessibility violations", async ({
  page,
}) => {
  await signIn(page, "manager");
  const { programId } = seed();
  await page.goto(`/dashboard/${programId}?range=custom&from=2026-01-01&to=2026-01-31`);
  await expect(page.locator(".recharts-surface").first()).toBeVisible();
  for (const summary of await page.getByText("Show the data as a table").all()) await summary.click();
  await expectNoSeriousViolations(page, "reports");
});

for (const sub of [
  "tiers",
  "rewards",
  "coupons",
  "earning-flows",
  "campaigns",
  "settings",
  "api-keys",
  "webhooks",
  "audit",
  "api-reference",
]) {
  test(`the manager's ${sub} page has no serious or critical accessibility violations`, async ({ page }) => {
    await signIn(page, "manager");
    const { programId } = seed();
    await page.goto(`/dashboard/${programId}/${sub}`);
    // The reference itself is the component the /docs case scans (a minute of axe on a busy machine): here, the
    // dashboard around it.
    await expectNoSeriousViolations(page, sub, sub === "api-reference" ? "[data-api-reference]" : undefined);
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

test("a coupon pool's codes page has no serious or critical accessibility violations", async ({ page }) => {
  await signIn(page, "manager");
  const { programId } = seed();
  await page.goto(`/dashboard/${programId}/coupons`);
  await page.getByRole("table", { name: "Coupon pools" }).getByRole("link").first().click();
  await expect(page.getByRole("table", { name: "Coupon codes" })).toBeVisible();
  await expectNoSeriousViolations(page, "coupon pool codes");
});

test("an open edit drawer has no serious or critical accessibility violations", async ({ page }) => {
  await signIn(page, "manager");
  const { programId } = seed();
  await page.goto(`/dashboard/${programId}/rewards`);
  await page
    .getByRole("table", { name: "Rewards" })
    .getByRole("button", { name: /^Edit / })
    .first()
    .click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await expectNoSeriousViolations(page, "reward edit drawer");
});

test("a webhook delivery's page and the viewer's read-only staff page have no serious or critical violations", async ({
  page,
}) => {
  await signIn(page, "manager");
  const { programId } = seed();
  await page.goto(`/dashboard/${programId}/webhooks`);
  const headers = { origin: new URL(page.url()).origin };
  // Port 9 (discard): nothing answers, so the delivery stays pending or fails; its page shows the payload either way.
  const hook = await page.request.post(`/api/staff/${programId}/webhooks`, {
    headers,
    data: { url: "http://127.0.0.1:9/a11y" },
  });
  expect(hook.status()).toBe(201);
  const { id } = await hook.json();
  const queued = await page.request.post(`/api/staff/${programId}/webhooks/${id}/test-event`, { headers });
  expect(queued.status()).toBe(202);
  await page.goto(`/dashboard/${programId}/webhooks/deliveries/${(await queued.json()).deliveryId}`);
  await expect(page.getByRole("region", { name: "Exact body of the delivery" })).toBeVisible();
  await expectNoSeriousViolations(page, "delivery");
  await page.goto(`/dashboard/${programId}/webhooks`);
  await page.getByText("Rotate signing secret").first().click();
  await page.getByText("Change events").first().click();
  await expectNoSeriousViolations(page, "webhooks with settings open");
  await page.request.patch(`/api/staff/${programId}/webhooks/${id}`, { headers, data: { active: false } });

  await page.context().clearCookies();
  await signIn(page, "viewer");
  await page.goto(`/dashboard/${programId}/staff`);
  await expect(page.getByRole("table", { name: "Staff members" })).toBeVisible();
  await expectNoSeriousViolations(page, "staff (viewer)");
});
