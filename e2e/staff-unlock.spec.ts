import { expect, test, type APIRequestContext } from "@playwright/test";
import { shot, signIn } from "./helpers";

// Issue 28, lockout without denial of service: a stranger's failed sign-ins lock a member's account (the member
// never signed in, so no address of theirs is trusted and their right password is held back too); the owner sees the
// lock on the Staff page, ends it, and the member signs in. The HTTP side (pairs, trusted addresses, the audit log)
// is test/integration/threat-staff-lockout-by-stranger.test.ts.
//
// The stranger names their own address in X-Forwarded-For (the server trusts no proxy here, so that is the key they
// are throttled under): the browser's address (127.0.0.1), shared by every spec of the run, is never locked.

const PASSWORD = "member passphrase 1";

/** One sign-in attempt through the credentials callback, as a script would make it; next-auth's error or "ok". */
async function attempt(request: APIRequestContext, email: string, password: string): Promise<string> {
  const { csrfToken } = (await (await request.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const res = await request.post("/api/auth/callback/credentials", {
    form: { csrfToken, email, password, json: "true" },
    maxRedirects: 0,
  });
  const { url } = (await res.json()) as { url: string };
  return new URL(url, "http://x").searchParams.get("error") ?? "ok";
}

test("an owner sees a member locked out by a stranger, unlocks, and the member signs in", async ({
  browser,
  page,
  playwright,
  baseURL,
}) => {
  test.slow(); // eleven bcrypt comparisons, two browsers
  await signIn(page, "owner");
  await page.getByRole("link", { name: "Staff" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Staff & roles" })).toBeVisible();
  const email = `locked.${Date.now()}@example.com`;
  const add = page.getByRole("form", { name: "Add a staff member" });
  await add.getByLabel("E-mail").fill(email);
  await add.getByLabel("Name").fill("Lou Locked");
  await add.getByLabel("Initial password").fill(PASSWORD);
  await add.getByLabel("Role").selectOption("support");
  await add.getByRole("button", { name: "Add staff member" }).click();
  const row = page.getByRole("row").filter({ hasText: email });
  await expect(row).toContainText("never signed in");
  await expect(row).not.toContainText("sign-in locked");

  // A stranger guesses: ten wrong passwords, each from an address of its own. After the fifth the account waits a
  // little longer before each attempt (the e2e server's base step is short); a throttled attempt counts nothing and is
  // simply made again.
  for (let guess = 1; guess <= 10; guess++) {
    const stranger = await playwright.request.newContext({
      baseURL,
      extraHTTPHeaders: { "x-forwarded-for": `203.0.113.${guess}` },
    });
    await expect
      .poll(() => attempt(stranger, email, `guess number ${guess}!`), {
        intervals: [100, 200, 400, 800, 1600],
        timeout: 30_000,
      })
      .toBe("CredentialsSignin");
    await stranger.dispose();
  }

  // The member, in a browser of their own, now cannot sign in with the right password.
  const theirs = await browser.newContext();
  const member = await theirs.newPage();
  await member.goto("/signin");
  await member.getByLabel("E-mail").fill(email);
  await member.getByLabel("Password").fill(PASSWORD);
  await member.getByRole("button", { name: "Sign in" }).click();
  await expect(member.getByText(/Too many failed sign-ins/)).toBeVisible();

  // The owner sees the lock on the Staff page, with an Unlock button.
  await page.reload();
  await expect(row.getByText(/sign-in locked until \d\d:\d\d UTC/)).toBeVisible();
  await row.scrollIntoViewIfNeeded();
  await shot(page, "staff-unlock-locked", { fullPage: false });
  await row.getByRole("button", { name: `Unlock ${email}` }).click();
  await expect(page.getByText(`${email} unlocked`)).toBeVisible();
  await expect(row).not.toContainText("sign-in locked");
  await expect(row.getByRole("button", { name: `Unlock ${email}` })).toHaveCount(0);

  // The member signs in at once.
  await member.getByLabel("Password").fill(PASSWORD);
  await member.getByRole("button", { name: "Sign in" }).click();
  await expect(member.getByRole("navigation", { name: "Dashboard" })).toBeVisible();
  await theirs.close();
  await page.reload();
  await expect(row).toContainText("last sign-in");
});
