import { expect, test } from "@playwright/test";
import { seed, shot, signIn } from "./helpers";

test("support finds a customer by part of the e-mail, edits the last name and adjusts the balance", async ({ page }) => {
  await signIn(page, "support");
  const email = seed().sampleEmail;
  const search = page.getByRole("combobox", { name: "Find a customer by e-mail" });
  await search.fill(email.slice(0, 8).toUpperCase());
  const option = page.getByRole("option", { name: new RegExp(email.replace(/[.+]/g, "\\$&")) });
  await expect(option).toBeVisible();
  await shot(page, "support-search");
  await search.press("ArrowDown");
  await search.press("ArrowUp");
  await option.click();
  await expect(page.getByRole("heading", { level: 1, name: email })).toBeVisible();

  await page.getByLabel("Last name").fill("Verhoeven");
  await page.getByRole("button", { name: "Save user data" }).click();
  await expect(page.getByText("User data saved")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Last name")).toHaveValue("Verhoeven");

  const adjust = page.getByRole("form", { name: "Adjust balance" });
  await adjust.getByLabel("Points").fill("50");
  await adjust.getByLabel("Reason").fill("Goodwill: late delivery");
  await adjust.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("Balance adjusted")).toBeVisible();
  const history = page.getByRole("table", { name: "Points history" });
  const row = history.getByRole("row").filter({ hasText: "Goodwill: late delivery" });
  await expect(row).toContainText("+50");
  await expect(row).toContainText("adjust");
  await expect(page.getByLabel("Balance", { exact: true })).toContainText("50");
  await shot(page, "support-customer");

  // A reason is required: the server says so and nothing moves.
  await adjust.getByLabel("Points").fill("5");
  await adjust.getByLabel("Reason").fill("no");
  await adjust.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "a reason is required" })).toBeVisible();
  await expect(history.getByRole("row")).toHaveCount(2);
});

test("a manager sees the overview charts, creates a tier and an API key", async ({ page }) => {
  await signIn(page, "manager");
  await expect(page.getByRole("img", { name: /points issued and redeemed/ })).toBeVisible();
  await expect(page.locator(".recharts-surface").first()).toBeVisible();
  await shot(page, "manager-overview");

  await page.getByRole("link", { name: "Tiers" }).click();
  await page.getByLabel("Name", { exact: true }).fill("Platinum");
  await page.getByLabel("Required points", { exact: true }).fill("20000");
  await page.getByLabel("Points factor", { exact: true }).fill("2");
  await page.getByLabel("Content", { exact: true }).fill("Double points and a yearly gift");
  await page.getByRole("button", { name: "Create tier" }).click();
  await expect(page.getByRole("cell", { name: "Platinum" })).toBeVisible();
  await shot(page, "manager-tiers");

  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByLabel("Name (who uses it)").fill("Point of sale");
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = page.getByTestId("new-api-key");
  await expect(secret).toHaveText(/^lk_live_[A-Za-z0-9]{32}$/);
  await expect(page.getByText("Point of sale")).toBeVisible();
  await shot(page, "manager-api-keys");
  // The new key works on the API at once.
  const key = await secret.textContent();
  const res = await page.request.get(`/v1/programs/${seed().programId}/tiers`, { headers: { "api-key": key! } });
  expect(res.status()).toBe(200);
  expect((await res.json()).data.map((t: { name: string }) => t.name)).toContain("Platinum");

  await page.getByRole("link", { name: "Audit log" }).click();
  await expect(page.locator("li", { hasText: "apikey.create" }).first()).toBeVisible();
  await expect(page.locator("li", { hasText: "tier.create" }).first()).toBeVisible();
  await expect(page.locator("body")).not.toContainText(key!);
  await shot(page, "manager-audit");
});

test("a viewer can look but not change anything, and a forged request is refused by the server", async ({ page }) => {
  await signIn(page, "viewer");
  const { programId, sampleEmail } = seed();
  await page.getByRole("link", { name: "Customers" }).click();
  await page.getByLabel("E-mail starts with").fill(sampleEmail.slice(0, 6));
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByRole("link", { name: sampleEmail }).click();
  await expect(page.getByText("Your role can view this customer but not change it.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Save user data" })).toHaveCount(0);
  await expect(page.getByLabel("Last name")).toBeDisabled();
  await expect(page.getByRole("link", { name: "API keys" })).toHaveCount(0);
  await shot(page, "viewer-customer");

  const customerId = page.url().split("/").at(-1)!;
  const base = `/api/staff/${programId}/customers/${customerId}`;
  const forged = [
    await page.request.post(`${base}/balance`, { data: { points: 1000, reason: "forged by a viewer" } }),
    await page.request.patch(base, { data: { lastName: "Forged" } }),
    await page.request.delete(base),
    await page.request.post(`/api/staff/${programId}/tiers`, { data: { name: "Forged", requiredPoints: 1, factor: 1 } }),
    await page.request.post(`/api/staff/${programId}/api-keys`, { data: { name: "Forged" } }),
  ];
  for (const res of forged) {
    expect(res.status()).toBe(403);
    expect((await res.json()).code).toBe("forbidden");
  }
  await page.reload();
  await expect(page.getByLabel("Last name")).not.toHaveValue("Forged");
  await expect(page.getByRole("table", { name: "Points history" })).not.toContainText("forged by a viewer");
  await page.goto(`/dashboard/${programId}/audit`);
  await expect(page).toHaveURL(/\/forbidden$/);
  await expect(page.getByRole("heading", { name: "Not for your role" })).toBeVisible();
});

test("signed-out visitors are sent to sign-in; sign-out ends the session", async ({ page }) => {
  const { programId } = seed();
  await page.goto(`/dashboard/${programId}/customers`);
  await expect(page).toHaveURL(/\/signin/);
  const refused = await page.request.post(`/api/staff/${programId}/tiers`, { data: { name: "Anon", requiredPoints: 1, factor: 1 } });
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
});

test("the customer page works on a phone-sized screen", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "support");
  const { sampleEmail } = seed();
  const search = page.getByRole("combobox", { name: "Find a customer by e-mail" });
  await search.fill(sampleEmail.slice(0, 10));
  await expect(page.getByRole("listbox").getByRole("option").first()).toBeVisible();
  await search.press("Enter");
  await expect(page).toHaveURL(/\/customers\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { level: 1, name: sampleEmail })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await shot(page, "mobile-customer");
});
