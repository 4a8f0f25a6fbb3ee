import { expect, test } from "@playwright/test";
import { sampleCustomerJson, seed, shot, signIn } from "./helpers";

// Issue 28: an audit log people can read. A manager changes a customer's phone; the audit log filtered to that one
// day (the program's day), to the manager and to customer changes, says it in words, shows the diff of the changed
// key and links to the customer.

test("the audit log filtered to one day shows who changed what, with a diff", async ({ page }) => {
  const { programId } = seed();
  const me = await signIn(page, "manager");
  const { id } = await sampleCustomerJson(page);
  const customerUrl = `/dashboard/${programId}/customers/${id}`;
  await page.goto(customerUrl);
  const phone = `+34 6${String(Date.now()).slice(-8)}`;
  const form = page.getByRole("form", { name: "User data" });
  await form.getByLabel("Phone").fill(phone);
  await form.getByRole("button", { name: "Save user data" }).click();
  await expect(page.getByText("User data saved")).toBeVisible();

  // The program's day (its time zone is on the settings page; another journey may have changed it).
  await page.goto(`/dashboard/${programId}/settings`);
  const zone = (
    await page
      .locator("dt", { hasText: /^Time zone$/ })
      .locator("xpath=following-sibling::dd[1]")
      .innerText()
  ).trim();
  const day = new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(new Date());

  await page.goto(`/dashboard/${programId}/audit`);
  const filters = page.getByRole("form", { name: "Filter the audit log" });
  await filters.getByLabel("From").fill(day);
  await filters.getByLabel("To").fill(day);
  await filters.getByLabel("Staff member").selectOption(me.email);
  await filters.getByLabel("Action").selectOption("customer.update");
  await filters.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(new RegExp(`from=${day}&to=${day}`));

  const entry = page.getByRole("list", { name: "Audit entries" }).getByRole("listitem").first();
  await expect(entry).toContainText(`${me.email} changed customer`);
  const phoneRow = entry.getByRole("table", { name: "Changes" }).getByRole("row", { name: /^phone/ });
  await expect(phoneRow).toContainText(phone);
  await expect(entry.getByRole("link", { name: "Open customer" })).toHaveAttribute("href", customerUrl);
  await expect(page.getByRole("button", { name: /Export/ })).toBeVisible();
  await shot(page, "audit-log-one-day");

  // Another day holds none of it.
  await filters.getByLabel("From").fill("2001-01-01");
  await filters.getByLabel("To").fill("2001-01-01");
  await filters.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByText("No entries match these filters.")).toBeVisible();
});
