import { expect, test, type Page } from "@playwright/test";
import { noHorizontalOverflow, seed, shot, signIn } from "./helpers";

// Issue 10, "Done means": support finds a customer by name and by phone, adjusts, is refused, corrects without
// retyping, reads the timeline (their own name on the entry) and adds a note; a viewer gets read views; the
// customers list is cards on a phone and the customer page starts with its actions.

/** The sample customer as the API knows them: names and phone for the searches. */
async function sampleCustomer(page: Page) {
  const { programId, apiKey, sampleEmail } = seed();
  const res = await page.request.get(`/v1/programs/${programId}/customers/${encodeURIComponent(sampleEmail)}`, {
    headers: { "api-key": apiKey },
  });
  expect(res.status()).toBe(200);
  const body = (await res.json()) as {
    loyaltyData: { balance: number };
    userData: { firstName: string; lastName: string; phone: string };
  };
  let balance = body.loyaltyData.balance;
  if (balance < 10) {
    // The demo's history may have left the sample with nothing to take: give it some through the API.
    const topUp = await page.request.post(
      `/v1/programs/${programId}/customers/${encodeURIComponent(sampleEmail)}/balance/increase`,
      { headers: { "api-key": apiKey }, data: { points: 50, reason: "e2e top-up" } },
    );
    expect(topUp.status()).toBe(200);
    balance = ((await topUp.json()) as { balance: number }).balance;
  }
  return { email: sampleEmail, ...body.userData, balance };
}

test("support finds a customer by name and by phone, is refused, corrects without retyping, and reads the timeline", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const me = await signIn(page, "support");
  const customer = await sampleCustomer(page);
  const search = page.getByRole("combobox", { name: /Find a customer/ });

  // By full name: the sample customer is among the best matches, said to match by name.
  await search.fill(`${customer.firstName} ${customer.lastName}`);
  const byName = page.getByRole("option", { name: new RegExp(customer.email.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) });
  await expect(byName).toBeVisible();
  await expect(byName).toContainText("name");
  await shot(page, "support-journey-search-name", { fullPage: false });

  // By phone, typed without the country code and with other separators: the digits are what count.
  const national = customer.phone.replace(/\D/g, "").slice(1); // "+1 555 123 4567" → "5551234567"
  await search.fill(`${national.slice(0, 3)}-${national.slice(3, 6)}-${national.slice(6)}`);
  const byPhone = page.getByRole("option").first();
  await expect(byPhone).toContainText(customer.email);
  await expect(byPhone).toContainText("phone");
  await shot(page, "support-journey-search-phone", { fullPage: false });
  await search.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: customer.email })).toBeVisible();

  // Take more than the balance: refused (409), and the form still holds "Take", the points and the reason.
  const adjust = page.getByRole("form", { name: "Adjust balance" });
  const reason = `Duplicate order ${Date.now()}`;
  await adjust.getByLabel("Direction").selectOption("down");
  await adjust.getByLabel("Points").fill(String(customer.balance + 1));
  await adjust.getByLabel("Reason").fill(reason);
  await adjust.getByRole("button", { name: "Apply" }).click();
  const refusal = adjust.getByRole("alert").filter({ hasText: /balance/i });
  await expect(refusal).toBeVisible();
  await expect(adjust.getByLabel("Direction")).toHaveValue("down");
  await expect(adjust.getByLabel("Points")).toHaveValue(String(customer.balance + 1));
  await expect(adjust.getByLabel("Reason")).toHaveValue(reason);
  await shot(page, "support-journey-refused");

  // Correct only the amount: still a take, with the reason as typed.
  const take = Math.min(5, customer.balance);
  await adjust.getByLabel("Points").fill(String(take));
  await adjust.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("Balance adjusted")).toBeVisible();
  await expect(page.getByLabel("Balance", { exact: true })).toHaveText(
    new RegExp(`^${(customer.balance - take).toLocaleString("en-US")}\\s*points$`),
  );

  // The timeline shows the take with the support member's own name.
  const timeline = page.getByRole("table", { name: "Timeline" });
  const row = timeline.getByRole("row").filter({ hasText: reason });
  await expect(row).toContainText(`-${take}`);
  await expect(row).toContainText(me.name ?? me.email);

  // An internal note, shown on the timeline with the author.
  const note = `Customer called about order ${Date.now()}`;
  const noteForm = page.getByRole("form", { name: "Add an internal note" });
  await noteForm.getByLabel(/Internal note/).fill(note);
  await noteForm.getByRole("button", { name: "Add note" }).click();
  await expect(page.getByText("Note added")).toBeVisible();
  const noteRow = timeline.getByRole("row").filter({ hasText: note });
  await expect(noteRow).toContainText(me.name ?? me.email);
  await expect(noteForm.getByLabel(/Internal note/)).toHaveValue("");

  // Narrowed to notes only.
  await page.getByLabel("Show in the timeline").selectOption("note");
  await expect(timeline.getByRole("row").filter({ hasText: reason })).toHaveCount(0);
  await expect(timeline.getByRole("row").filter({ hasText: note })).toBeVisible();

  // Preferences: language refused at the field, the checkboxes keep their changes; then saved.
  const prefs = page.getByRole("form", { name: "Notification preferences" });
  const marketing = prefs.getByLabel("Marketing");
  const wasOn = await marketing.isChecked();
  await marketing.setChecked(!wasOn);
  await prefs.getByLabel("Language").fill("not a tag");
  await prefs.getByRole("button", { name: "Save preferences" }).click();
  await expect(prefs.getByRole("alert").filter({ hasText: "language tag" })).toBeVisible();
  expect(await marketing.isChecked()).toBe(!wasOn);
  await prefs.getByLabel("Language").fill("es");
  await prefs.getByRole("button", { name: "Save preferences" }).click();
  await expect(page.getByText("Preferences saved")).toBeVisible();
  await page.reload();
  await expect(page.getByRole("form", { name: "Notification preferences" }).getByLabel("Language")).toHaveValue("es");
  await shot(page, "support-journey-customer");
});

test("a duplicate e-mail is shown at the e-mail field and the other edits stay", async ({ page }) => {
  await signIn(page, "support");
  const { programId, sampleEmail } = seed();
  const domain = sampleEmail.split("@")[1]!;
  const other = await page.request.get(`/api/staff/${programId}/search?q=${encodeURIComponent(domain)}`);
  const taken = ((await other.json()).data as { email: string }[]).find((r) => r.email !== sampleEmail)!.email;
  await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(sampleEmail)}`);
  await page.getByRole("link", { name: sampleEmail }).click();
  const form = page.getByRole("form", { name: "User data" });
  await form.getByLabel("E-mail", { exact: true }).fill(taken);
  await form.getByLabel("First name").fill("Retyped-not");
  await form.getByRole("button", { name: "Save user data" }).click();
  await expect(form.getByRole("alert").filter({ hasText: "already taken" })).toBeVisible();
  await expect(form.getByLabel("E-mail", { exact: true })).toHaveValue(taken);
  await expect(form.getByLabel("First name")).toHaveValue("Retyped-not");
});

test("at 390 px the customers list is cards with e-mail, tier and balance, and the customer page starts with its actions", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "support");
  const { programId, sampleEmail } = seed();
  await page.goto(`/dashboard/${programId}/customers`);
  const cards = page.getByRole("list", { name: "Customers" });
  await expect(cards).toBeVisible();
  await expect(page.getByRole("table", { name: "Customers" })).toBeHidden();
  const first = cards.getByRole("listitem").first();
  await expect(first.getByRole("link")).toContainText("@");
  await expect(first).toContainText("Tier");
  await expect(first).toContainText("Balance");
  await noHorizontalOverflow(page);
  await shot(page, "support-journey-phone-customers");

  await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(sampleEmail)}`);
  await cards.getByRole("link", { name: sampleEmail }).click();
  await expect(page.getByRole("heading", { level: 1, name: sampleEmail })).toBeVisible();
  // The actions are the first card under the heading: within the first screen.
  const actions = page.getByRole("region", { name: "Actions" });
  const box = (await actions.boundingBox())!;
  expect(box.y).toBeLessThan(844);
  const timelineBox = (await page.getByRole("region", { name: "Timeline" }).boundingBox())!;
  expect(box.y).toBeLessThan(timelineBox.y);
  await noHorizontalOverflow(page);
  await shot(page, "support-journey-phone-customer", { fullPage: false });
});

test("a viewer reads the customer page: read views, no forms, the timeline", async ({ page }) => {
  await signIn(page, "viewer");
  const { programId, sampleEmail } = seed();
  await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(sampleEmail)}`);
  await page.getByRole("link", { name: sampleEmail }).click();
  await expect(page.getByRole("heading", { level: 1, name: sampleEmail })).toBeVisible();
  const main = page.getByRole("main");
  await expect(main.locator("form")).toHaveCount(0);
  await expect(main.locator("input:disabled, select:disabled, textarea:disabled")).toHaveCount(0);
  const userData = page.getByRole("region", { name: "User data" });
  await expect(userData).toContainText("Last name");
  await expect(userData).toContainText(sampleEmail);
  await expect(page.getByRole("region", { name: "Notification preferences" })).toContainText("Marketing");
  await expect(page.getByRole("table", { name: "Timeline" })).toBeVisible();
  await shot(page, "support-journey-viewer");
});
