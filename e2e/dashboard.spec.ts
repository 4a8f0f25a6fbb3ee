import { expect, test } from "@playwright/test";
import { seed, shot, signIn, fromPage } from "./helpers";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const points = (text: string | null) => Number((text ?? "").replace(/[^0-9]/g, ""));

test("support finds a customer by part of the e-mail, edits the last name and adjusts the balance", async ({
  page,
}) => {
  const me = await signIn(page, "support");
  const email = seed().sampleEmail;
  const search = page.getByRole("combobox", { name: "Find a customer" });
  // Typed in capitals: the search is case-insensitive.
  await search.pressSequentially(email.slice(0, 9).toUpperCase(), { delay: 30 });
  const option = page.getByRole("option", { name: new RegExp(escape(email)) });
  await expect(option).toBeVisible();
  await shot(page, "support-search");
  // Keyboard: the first ↓ selects the first result, Enter opens it.
  await expect(page.getByRole("option").first()).toContainText(email);
  await search.press("ArrowDown");
  await expect(page.getByRole("option").first()).toHaveAttribute("aria-selected", "true");
  await search.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: email })).toBeVisible();
  const balanceBefore = points(await page.getByLabel("Balance", { exact: true }).textContent());

  // The edit form validates with the API's rules before sending anything.
  await page.getByLabel("Phone").fill("call me maybe");
  await page.getByRole("button", { name: "Save user data" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "must be a phone number" })).toBeVisible();
  await page.getByLabel("Phone").fill("+1 555 010 0199");
  await page.getByLabel("Last name").fill("Verhoeven");
  await page.getByRole("button", { name: "Save user data" }).click();
  await expect(page.getByText("User data saved")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Last name")).toHaveValue("Verhoeven");
  await expect(page.getByLabel("Phone")).toHaveValue("+1 555 010 0199");

  // A reason is required: refused before anything is sent, and nothing moves.
  const adjust = page.getByRole("form", { name: "Adjust balance" });
  const history = page.getByRole("table", { name: "Timeline" });
  const rowsBefore = await history.getByRole("row").count();
  await adjust.getByLabel("Points").fill("50");
  await adjust.getByLabel("Reason").fill("no");
  await adjust.getByRole("button", { name: "Apply" }).click();
  await expect(adjust.getByRole("alert").filter({ hasText: "a reason is required" })).toBeVisible();

  await adjust.getByLabel("Reason").fill("Goodwill: late delivery");
  await adjust.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("Balance adjusted")).toBeVisible();
  const row = history.getByRole("row").filter({ hasText: "Goodwill: late delivery" });
  await expect(row).toContainText("+50");
  await expect(row).toContainText("adjust");
  // The timeline names the staff member who made a dashboard adjustment.
  await expect(row).toContainText(me.name ?? me.email);
  await expect(history.getByRole("row")).toHaveCount(Math.min(rowsBefore + 1, 26));
  await expect(page.getByLabel("Balance", { exact: true })).toHaveText(
    new RegExp(`^${(balanceBefore + 50).toLocaleString("en-US")}\\s*points$`),
  );

  // Above support's ceiling (10,000 points per adjustment by default) the form says who may do it, and nothing moves.
  const rule = "Up to 10,000 points for support; ask a manager or owner";
  await expect(adjust).toContainText(rule);
  await adjust.getByLabel("Points").fill("10001");
  await adjust.getByLabel("Reason").fill("Big goodwill");
  await adjust.getByRole("button", { name: "Apply" }).click();
  await expect(adjust.getByRole("alert").filter({ hasText: rule })).toBeVisible();
  await expect(history.getByRole("row").filter({ hasText: "Big goodwill" })).toHaveCount(0);
  await expect(page.getByLabel("Balance", { exact: true })).toHaveText(
    new RegExp(`^${(balanceBefore + 50).toLocaleString("en-US")}\\s*points$`),
  );
  await shot(page, "support-customer");

  // Support cannot delete customers (managers and owners can) nor see the audit log.
  await expect(page.getByRole("form", { name: "Delete customer" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Audit log" })).toHaveCount(0);
});

test("a manager sees the overview charts, lists customers by balance, creates a tier and an API key, and reads the audit log", async ({
  page,
}) => {
  await signIn(page, "manager");
  for (const name of [/points issued and redeemed/, /new members per day/, /customers per tier/]) {
    const chart = page.getByRole("img", { name });
    await expect(chart).toBeVisible();
    await expect(chart.locator(".recharts-wrapper")).toBeVisible();
  }
  await expect(page.locator(".recharts-line-curve").first()).toBeVisible();
  const issued = points(
    await page
      .getByText("Points issued", { exact: true })
      .locator("..")
      .getByText(/^[\d,]+$/)
      .textContent(),
  );
  expect(issued).toBeGreaterThan(0);
  await shot(page, "manager-overview");

  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Customers" }).click();
  await page.getByLabel("Sort").selectOption("balance");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/sort=balance/);
  const balances = async () => (await page.locator("tbody tr td:nth-child(4)").allTextContents()).map(points);
  const first = await balances();
  expect(first.length).toBe(25);
  expect([...first].sort((a, b) => b - a)).toEqual(first);
  await page.getByRole("link", { name: "Next page →" }).click();
  await expect(page).toHaveURL(/after=/);
  const second = await balances();
  expect(second[0]).toBeLessThanOrEqual(first.at(-1)!);
  await shot(page, "manager-customers");

  await page.getByRole("link", { name: "Tiers" }).click();
  await page.getByLabel("Name", { exact: true }).fill("Platinum");
  await page.getByLabel("Required points", { exact: true }).fill("20000");
  await page.getByLabel("Points factor", { exact: true }).fill("2");
  await page.getByLabel("Content", { exact: true }).fill("Double points and a yearly gift");
  await page.getByRole("button", { name: "Create tier" }).click();
  await expect(page.getByRole("cell", { name: "Platinum", exact: true })).toBeVisible();

  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByLabel("Name (who uses it)").fill("Point of sale");
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = page.getByTestId("new-api-key");
  await expect(secret).toHaveText(/^lk_live_[A-Za-z0-9]{32}$/);
  await expect(page.getByText("Point of sale").first()).toBeVisible();
  // The new key works on the API at once.
  const key = await secret.textContent();
  const res = await page.request.get(`/v1/programs/${seed().programId}/tiers`, { headers: { "api-key": key! } });
  expect(res.status()).toBe(200);
  expect((await res.json()).data.map((t: { name: string }) => t.name)).toContain("Platinum");

  await page.getByRole("link", { name: "Audit log" }).click();
  const entries = page.getByRole("list", { name: "Audit entries" }).getByRole("listitem");
  await expect(entries.filter({ hasText: "apikey.create" })).toHaveCount(1);
  await expect(entries.filter({ hasText: "tier.create" })).toHaveCount(1);
  await expect(page.locator("body")).not.toContainText(key!);
  await page.getByLabel("Action").selectOption("tier.create");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/action=tier.create/);
  await expect(entries).toHaveCount(1);
  await expect(entries.first()).toContainText("Platinum");
  await shot(page, "manager-audit");

  await page.getByRole("link", { name: "API reference" }).click();
  await expect(page.getByRole("heading", { name: "Get customer details by email" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Fields of UserPayload" })).toBeVisible();
  await shot(page, "manager-api-reference", { fullPage: false });
  await page.getByRole("link", { name: "Create/Update resources" }).first().click();
  await shot(page, "manager-api-reference-operation", { fullPage: false });
  await page.locator("#schema-Customer").scrollIntoViewIfNeeded();
  await shot(page, "manager-api-reference-schema", { fullPage: false });
});

test("a viewer can look but not change anything, and forged requests are refused by the server", async ({ page }) => {
  await signIn(page, "viewer");
  const { programId, sampleEmail } = seed();
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Customers" }).click();
  await page.getByLabel("Find customers").fill(sampleEmail.slice(0, 6));
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByRole("link", { name: sampleEmail }).click();
  await expect(page.getByText("Your role can view this customer but not change it.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Save user data" })).toHaveCount(0);
  await expect(page.getByRole("form", { name: "Adjust balance" })).toHaveCount(0);
  // Read views, not disabled forms.
  const userData = page.getByRole("region", { name: "User data" });
  await expect(userData).toContainText("Last name");
  await expect(page.getByRole("main").locator("input:disabled")).toHaveCount(0);
  await expect(page.getByRole("link", { name: "API keys" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Audit log" })).toHaveCount(0);
  await shot(page, "viewer-customer");

  const customerId = page.url().split("/").at(-1)!;
  const userDataText = await userData.textContent();
  const balance = await page.getByLabel("Balance", { exact: true }).textContent();
  // The requests the buttons would send, sent anyway with the viewer's session.
  const base = `/api/staff/${programId}/customers/${customerId}`;
  const forged = [
    await page.request.post(`${base}/balance`, {
      headers: fromPage(page),
      data: { points: 1000, reason: "forged by a viewer" },
    }),
    await page.request.patch(base, { headers: fromPage(page), data: { lastName: "Forged" } }),
    await page.request.delete(base, { headers: fromPage(page) }),
    await page.request.post(`${base}/notifications`, {
      headers: fromPage(page),
      data: { title: "Forged", body: "Forged", category: "marketing" },
    }),
    await page.request.post(`/api/staff/${programId}/tiers`, {
      headers: fromPage(page),
      data: { name: "Forged", requiredPoints: 1, factor: 1 },
    }),
    await page.request.post(`/api/staff/${programId}/api-keys`, { headers: fromPage(page), data: { name: "Forged" } }),
  ];
  for (const res of forged) {
    expect(res.status()).toBe(403);
    expect((await res.json()).code).toBe("forbidden");
  }
  await page.reload();
  await expect(userData).toHaveText(userDataText!);
  await expect(page.getByLabel("Balance", { exact: true })).toHaveText(balance!);
  await expect(page.getByRole("table", { name: "Timeline" })).not.toContainText("forged by a viewer");
  const forbidden = await page.goto(`/dashboard/${programId}/audit`);
  expect(forbidden?.status()).toBe(403);
  await expect(page).toHaveURL(/\/audit$/);
  await expect(page.getByRole("heading", { name: "Not for your role" })).toBeVisible();
  await shot(page, "viewer-forbidden");
});

test("signed-out visitors are sent to sign-in; sign-out ends the session", async ({ page }) => {
  const { programId } = seed();
  await page.goto("/");
  await page.getByRole("link", { name: "Staff sign-in" }).click();
  await expect(page).toHaveURL(/\/signin$/);
  await page.goto(`/dashboard/${programId}/customers`);
  await expect(page).toHaveURL(/\/signin/);
  const refused = await page.request.post(`/api/staff/${programId}/tiers`, {
    headers: fromPage(page),
    data: { name: "Anon", requiredPoints: 1, factor: 1 },
  });
  expect(refused.status()).toBe(401);

  await page.getByLabel("E-mail").fill(seed().staff[0]!.email);
  await page.getByLabel("Password").fill("wrong password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("That e-mail and password do not match a staff account.")).toBeVisible();
  await shot(page, "signin-error");

  await signIn(page, "owner");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin/);
  await page.goto(`/dashboard/${programId}`);
  await expect(page).toHaveURL(/\/signin/);
  const after = await page.request.get(`/api/staff/${programId}/search?q=a`);
  expect(after.status()).toBe(401);
});

test("an owner with two programs switches between them", async ({ page }) => {
  const { programId, secondProgram } = seed();
  await signIn(page, "owner");
  const switcher = page.getByLabel("Program");
  await expect(switcher).toHaveValue(programId);
  await switcher.selectOption(secondProgram!.programId);
  await expect(page).toHaveURL(new RegExp(`/dashboard/${secondProgram!.programId}$`));
  await expect(page.getByRole("heading", { level: 1, name: secondProgram!.name })).toBeVisible();
  // In the second program the owner is a viewer: no API keys, no audit log.
  await expect(page.getByRole("link", { name: "API keys" })).toHaveCount(0);
  await shot(page, "owner-switcher");
});

test("the customer page works on a phone-sized screen", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "support");
  const { sampleEmail } = seed();
  await page.getByRole("combobox", { name: "Find a customer" }).fill(sampleEmail.slice(0, 10));
  await page.getByRole("option").first().click();
  await expect(page).toHaveURL(/\/customers\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { level: 1, name: sampleEmail })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await shot(page, "mobile-customer");
  await page.getByRole("link", { name: "Overview" }).click();
  await expect(page.locator(".recharts-surface").first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
  await shot(page, "mobile-overview");
});
