import { expect, test } from "@playwright/test";
import { sampleCustomerJson, seed, shot, signIn } from "./helpers";

// Issue 28, item 1: two people edit one customer. Support saves a new phone; a manager whose page still shows the
// old one changes only the first name: the save is refused (nothing changes, the old phone does not come back), the
// message says what was changed, and Reload shows the current values, from which the manager's save goes through.

test("two sessions edit one customer: the second save is refused and offers to reload", async ({ browser }) => {
  const { programId } = seed();
  const support = await browser.newContext();
  const manager = await browser.newContext();
  const a = await support.newPage();
  const b = await manager.newPage();
  await signIn(a, "support");
  await signIn(b, "manager");
  const { id } = await sampleCustomerJson(a);
  const url = `/dashboard/${programId}/customers/${id}`;
  await a.goto(url);
  await b.goto(url);

  const phone = `+34 6${String(Date.now()).slice(-8)}`;
  const formA = a.getByRole("form", { name: "User data" });
  await formA.getByLabel("Phone").fill(phone);
  await formA.getByRole("button", { name: "Save user data" }).click();
  await expect(a.getByText("User data saved")).toBeVisible();

  const formB = b.getByRole("form", { name: "User data" });
  const firstName = `Stale${Date.now() % 1000}`;
  await formB.getByLabel("First name").fill(firstName);
  await formB.getByRole("button", { name: "Save user data" }).click();
  const refusal = b.getByText(/Someone else changed this customer since you opened it/).first();
  await expect(refusal).toBeVisible();
  await expect(refusal).toContainText("phone");
  await shot(b, "stale-edit-refused", { fullPage: false });

  // Nothing changed: the phone support saved is still there, the first name is not the manager's.
  const { userData: user } = await sampleCustomerJson<{ userData: { phone: string; firstName: string } }>(a);
  expect(user.phone).toBe(phone);
  expect(user.firstName).not.toBe(firstName);

  // Reload shows support's phone; the manager's change, made again, is saved.
  await b.getByRole("button", { name: "Reload" }).click();
  await expect(b.getByRole("form", { name: "User data" }).getByLabel("Phone")).toHaveValue(phone);
  const reloaded = b.getByRole("form", { name: "User data" });
  await reloaded.getByLabel("First name").fill(firstName);
  await reloaded.getByRole("button", { name: "Save user data" }).click();
  await expect(b.getByText("User data saved")).toBeVisible();
  await support.close();
  await manager.close();
});

// A quick user types before the page's scripts have run: what they typed is a change to save, not what the form
// showed (the form once read its "shown" values after hydration, so this save said "Nothing to save").
test("a field typed before the page hydrated is saved", async ({ page }) => {
  const { programId } = seed();
  await signIn(page, "manager");
  const { id } = await sampleCustomerJson(page);
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/_next/static/**/*.js", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`/dashboard/${programId}/customers/${id}`, { waitUntil: "domcontentloaded" });
  const form = page.getByRole("form", { name: "User data" });
  const phone = `+34 7${String(Date.now()).slice(-8)}`;
  await form.getByLabel("Phone").fill(phone);
  release();
  // Hydrated: React has attached its props to the form element.
  await expect
    .poll(() => form.evaluate((el) => Object.keys(el).some((k) => k.startsWith("__reactProps"))), { timeout: 20_000 })
    .toBe(true);
  await form.getByRole("button", { name: "Save user data" }).click();
  await expect(page.getByText("User data saved")).toBeVisible();
  expect((await sampleCustomerJson<{ userData: { phone: string } }>(page)).userData.phone).toBe(phone);
});
