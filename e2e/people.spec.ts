import { expect, test } from "@playwright/test";
import { seed, shot, signIn, fromPage, noHorizontalOverflow } from "./helpers";

test("an owner adds a webhook, sets the push endpoint, re-sends a delivery and manages staff", async ({ page }) => {
  test.setTimeout(120_000);
  const { programId, sampleEmail } = seed();
  await signIn(page, "owner");
  page.on("dialog", (dialog) => void dialog.accept());

  // Webhooks: validated in the browser, created, its secret shown once.
  await page.getByRole("link", { name: "Webhooks" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Webhooks & push" })).toBeVisible();
  const hookUrl = "https://hooks.example.com/loyalty/events";
  // Other journeys of the run may have added webhooks of their own (e2e/manager-integrations.spec.ts): not this one.
  await expect(page.getByRole("main").getByText(hookUrl)).toHaveCount(0);
  await page.getByLabel("Webhook URL").fill("ftp://files.example.com");
  await page.getByRole("button", { name: "Add webhook" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "must be an http(s) URL" })).toBeVisible();
  await page.getByLabel("Webhook URL").fill(hookUrl);
  await page.getByRole("button", { name: "Add webhook" }).click();
  await expect(page.getByText("Webhook created")).toBeVisible();
  const secret = (await page.getByTestId("new-webhook-secret").textContent())!;
  expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
  const endpoints = page.getByRole("list", { name: "Webhook endpoints" });
  await expect(endpoints.getByRole("listitem").filter({ hasText: hookUrl })).toContainText("active");
  await shot(page, "people-webhook-secret");

  // The push endpoint, with its own secret shown once.
  await page.getByLabel("Push endpoint URL").fill("https://push.example.com/loyalty");
  await page.getByRole("form", { name: "Push endpoint" }).getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Push endpoint saved")).toBeVisible();
  await expect(page.getByTestId("new-push-secret")).toHaveText(/^whsec_/);

  // Shown once: not after a reload, and nowhere in the page.
  await page.reload();
  await expect(page.getByTestId("new-webhook-secret")).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);
  await expect(page.getByLabel("Push endpoint URL")).toHaveValue("https://push.example.com/loyalty");

  // A push notification to a customer queues a delivery to the push endpoint (offline, the outbox cannot reach it: it
  // stays pending).
  await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(sampleEmail)}`);
  await page.getByRole("link", { name: sampleEmail }).click();
  const notify = page.getByRole("form", { name: "Send a notification" });
  await notify.getByLabel("Title").fill("Your points are waiting");
  await notify.getByLabel("Category").selectOption("balance");
  await notify.getByLabel("Message").fill("Come and spend them this week.");
  await notify.getByRole("button", { name: "Send" }).click();
  await expect(page.getByText("Notification queued")).toBeVisible();

  // The delivery log: filter by status, then re-send.
  await page.getByRole("link", { name: "Webhooks" }).click();
  const log = page.getByRole("table", { name: "Deliveries" });
  const row = log.getByRole("row").filter({ hasText: "push.example.com/loyalty" });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("notification");
  await expect(row).toContainText("pending");
  await page.getByLabel("Status").selectOption("delivered");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/status=delivered/);
  // (Other journeys' test events may be delivered: this push delivery is not among them.)
  await expect(row).toHaveCount(0);
  await page.getByLabel("Status").selectOption("pending");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/status=pending/);
  await expect(row).toHaveCount(1);
  await row.getByRole("button", { name: /^Re-send/ }).click();
  await expect(page.getByText("Delivery queued again")).toBeVisible();
  await shot(page, "people-delivery-log");

  // Switching the webhook off.
  await page.getByRole("button", { name: `Disable webhook ${hookUrl}` }).click();
  await expect(page.getByText("Webhook disabled")).toBeVisible();
  await expect(endpoints.getByRole("listitem").filter({ hasText: hookUrl })).toContainText("disabled");
  await expect(page.getByRole("button", { name: `Enable webhook ${hookUrl}` })).toBeVisible();

  // Staff: add a support member (password rules checked first), change the role, disable the account.
  await page.getByRole("link", { name: "Staff" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Staff & roles" })).toBeVisible();
  const newcomer = `newcomer.${Date.now()}@demo.example`;
  const add = page.getByRole("form", { name: "Add a staff member" });
  await add.getByLabel("E-mail").fill(newcomer);
  await add.getByLabel("Name").fill("Nora Newcomer");
  await add.getByLabel("Initial password").fill("too short");
  await add.getByLabel("Role").selectOption("support");
  await add.getByRole("button", { name: "Add staff member" }).click();
  await expect(add.getByRole("alert").filter({ hasText: "must be at least 12 characters" })).toBeVisible();
  await add.getByLabel("Initial password").fill("a long enough initial password");
  await add.getByRole("button", { name: "Add staff member" }).click();
  await expect(page.getByText(`${newcomer} added`)).toBeVisible();
  const members = page.getByRole("table", { name: "Staff members" });
  const member = members.getByRole("row").filter({ hasText: newcomer });
  await expect(member).toContainText("Nora Newcomer");
  await expect(page.getByLabel(`Role of ${newcomer}`, { exact: true })).toHaveValue("support");

  await page.getByLabel(`Role of ${newcomer}`, { exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: `Save role of ${newcomer}` }).click();
  await expect(page.getByText("Role changed")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel(`Role of ${newcomer}`, { exact: true })).toHaveValue("viewer");

  await page.getByRole("button", { name: `Disable ${newcomer}` }).click();
  await expect(page.getByText(`${newcomer} disabled`)).toBeVisible();
  await expect(member).toContainText("disabled");
  await expect(page.getByRole("button", { name: `Re-enable ${newcomer}` })).toBeVisible();
  // The owner's own row offers neither a role change nor a disable button.
  const owner = seed().staff.find((s) => s.role === "owner")!;
  await expect(page.getByLabel(`Role of ${owner.email}`, { exact: true })).toHaveCount(0);
  await expect(page.getByRole("button", { name: `Disable ${owner.email}` })).toHaveCount(0);
  await shot(page, "people-staff");

  // Phone-sized screen: tables scroll inside their cards, the page itself does not.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(members).toBeVisible();
  await noHorizontalOverflow(page);
  await shot(page, "people-staff-mobile");
  await page.goto(`/dashboard/${programId}/webhooks`);
  await expect(log).toBeVisible();
  await noHorizontalOverflow(page);
  await shot(page, "people-webhooks-mobile");

  // The disabled member's sign-in is refused like a wrong password.
  await page.context().clearCookies();
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(newcomer);
  await page.getByLabel("Password").fill("a long enough initial password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("That e-mail and password do not match a staff account.")).toBeVisible();
  await expect(page).toHaveURL(/\/signin/);
  await expect(page.getByRole("navigation", { name: "Dashboard" })).toHaveCount(0);
});

test("a manager configures webhooks and reads the Staff page without its forms; a forged write is refused", async ({
  page,
}) => {
  const { programId } = seed();
  await signIn(page, "manager");
  await expect(page.getByRole("link", { name: "Webhooks" })).toBeVisible();
  await page.getByRole("link", { name: "Staff" }).click();
  await expect(page.getByRole("table", { name: "Staff members" })).toBeVisible();
  await expect(page.getByRole("form", { name: "Add a staff member" })).toHaveCount(0);
  await expect(page.getByRole("main").getByRole("combobox")).toHaveCount(0);
  const forged = await page.request.post(`/api/staff/${programId}/staff`, {
    headers: fromPage(page),
    data: { email: "forged@demo.example", name: "Forged", password: "a long enough password", role: "owner" },
  });
  expect(forged.status()).toBe(403);
  await page.goto(`/dashboard/${programId}/webhooks`);
  await expect(page.getByRole("button", { name: "Add webhook" })).toBeVisible();
  await shot(page, "people-manager-forbidden-staff");
});

test("a viewer reads the webhooks page without its manage controls", async ({ page }) => {
  const { programId } = seed();
  await signIn(page, "viewer");
  await page.getByRole("link", { name: "Webhooks" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Webhooks & push" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Add webhook" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Re-send/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^(Disable|Enable) webhook/ })).toHaveCount(0);
  const forged = await page.request.post(`/api/staff/${programId}/webhooks`, {
    headers: fromPage(page),
    data: { url: "https://forged.example.com" },
  });
  expect(forged.status()).toBe(403);
  await shot(page, "people-viewer-webhooks");
});
