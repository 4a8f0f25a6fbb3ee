import { expect, test } from "@playwright/test";
import * as OTPAuth from "otpauth";
import { shot, signIn } from "./helpers";

// Issue 28, item 5: an owner invites a colleague by a one-time link (no mail server: the link is shown once); the
// colleague chooses a password, sets up a second factor (TOTP; the code is computed here from the secret shown, as
// an authenticator app would), and signs in with it.

const codeFor = (secret: string, offsetSteps = 0) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({
    timestamp: Date.now() + offsetSteps * 30_000,
  });

test("an owner invites a colleague, who signs in with a second factor", async ({ browser, page }) => {
  test.slow(); // two browsers, five bcrypt hashes
  await signIn(page, "owner");
  await page.getByRole("link", { name: "Staff" }).click();
  const email = `colleague.${Date.now()}@example.com`;
  const invite = page.getByRole("form", { name: "Invite a colleague" });
  await invite.getByLabel("E-mail").fill(email);
  await invite.getByLabel("Name (optional)").fill("Carmen Colleague");
  await invite.getByLabel("Role").selectOption("manager");
  await invite.getByRole("button", { name: "Create invitation link" }).click();
  const link = await page.getByTestId("invite-link").textContent();
  expect(link).toMatch(/\/account\/welcome#[\w-]{43}$/);
  await shot(page, "team-invite-link", { fullPage: false });

  // The colleague, in a browser of their own.
  const theirs = await browser.newContext();
  const colleague = await theirs.newPage();
  await colleague.goto(link!);
  await colleague.getByLabel("New password").fill("colleague passphrase 1");
  await colleague.getByRole("button", { name: "Set password" }).click();
  await expect(colleague.getByText(`Your account is ready: ${email}`)).toBeVisible();
  // The link is spent: opened again (a new tab), it is refused.
  const again = await theirs.newPage();
  await again.goto(link!);
  await again.getByLabel("New password").fill("another passphrase 2");
  await again.getByRole("button", { name: "Set password" }).click();
  await expect(again.getByText(/unknown, used already or expired/).first()).toBeVisible();
  await again.close();

  await colleague
    .getByRole("link", { name: "Sign in" })
    .click()
    .catch(() => colleague.goto("/signin"));
  await colleague.goto("/signin");
  await colleague.getByLabel("E-mail").fill(email);
  await colleague.getByLabel("Password").fill("colleague passphrase 1");
  await colleague.getByRole("button", { name: "Sign in" }).click();
  await expect(colleague.getByRole("navigation", { name: "Dashboard" })).toBeVisible();

  // A second factor, from the account page.
  await colleague.goto("/account");
  await colleague.getByRole("button", { name: "Set up a second factor" }).click();
  const secret = (await colleague.getByTestId("totp-secret").textContent())!.trim();
  await expect(colleague.getByTestId("totp-uri")).toContainText("otpauth://totp/");
  // The QR code of that link, drawn by the server into the page (an inline svg: no image from elsewhere).
  const qr = colleague.getByRole("img", { name: /QR code of the otpauth/ });
  await expect(qr).toBeVisible();
  expect(await qr.evaluate((el) => el.tagName.toLowerCase())).toBe("svg");
  await shot(colleague, "team-totp-qr", { fullPage: false });
  await colleague.getByLabel("Code from the app").fill(codeFor(secret));
  await colleague.getByRole("button", { name: "Confirm" }).click();
  await expect(colleague.getByTestId("recovery-codes").locator("li")).toHaveCount(10);
  await expect(colleague.getByText(/on since/)).toBeVisible();
  await shot(colleague, "team-second-factor-on");

  // Signed out, the sign-in asks for the code after the password.
  await colleague.getByRole("button", { name: "Sign out" }).click();
  await expect(colleague).toHaveURL(/\/signin/);
  await colleague.getByLabel("E-mail").fill(email);
  await colleague.getByLabel("Password").fill("colleague passphrase 1");
  await colleague.getByRole("button", { name: "Sign in" }).click();
  const code = colleague.getByLabel("Code from your authenticator app");
  await expect(code).toBeVisible();
  await shot(colleague, "team-sign-in-code", { fullPage: false });
  // The code the enrolment used is spent; the app's next one is accepted (one step of drift).
  await code.fill(codeFor(secret, 1));
  await colleague.getByRole("button", { name: "Verify and sign in" }).click();
  await expect(colleague.getByRole("navigation", { name: "Dashboard" })).toBeVisible();
  await theirs.close();

  // The owner sees the colleague: manager, signed in, with a second factor.
  await page.reload();
  const row = page.getByRole("row", { name: new RegExp(email.replace(/\./g, "\\.")) });
  await expect(row).toContainText("second factor");
  await expect(row).toContainText("last sign-in");
  await shot(page, "team-staff-page");
});
