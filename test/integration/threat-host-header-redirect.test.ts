/**
 * Threat: steering the app's redirects off-site — a forged X-Forwarded-Host (the app has no NEXTAUTH_URL and no
 * trusted proxy), or a callbackUrl that is foreign, protocol-relative, javascript: or malformed. Every redirect
 * stays on the app's own origin, and nothing answers 500.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { createStaff } from "@/lib/domain/staff";
import { TWO_PROGRAMS } from "../support/fixtures";
import { BACKENDS, openStack, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { attemptSignIn, csrf } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";
const FORGED = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };
const SIGN_IN_CALLBACKS = ["%", "http://evil.example/x", "//evil.example/x", "javascript:alert(1)"];
const BAD_CALLBACKS = [
  "%",
  "%E0%A4%A",
  "http://evil.example/x",
  "//evil.example/x",
  "/\\evil.example/x",
  "javascript:alert(1)",
  "https:evil.example",
  " http://evil.example",
];

// The backends behave alike here (no data involved beyond one sign-in): PGlite only keeps the suite short.
for (const backend of BACKENDS.slice(0, 1)) {
  describe(`Threat: host header and callbackUrl redirects [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    let email = "";

    before(async () => {
      stack = await openStack(backend, TWO_PROGRAMS);
      email = `owner.${Math.random().toString(36).slice(2, 8)}@example.com`;
      await stack.withPrisma((prisma) =>
        createStaff(prisma, { email, password: PASSWORD, programId: stack.programId, role: "owner" }),
      );
      // No NEXTAUTH_URL, no TRUST_PROXY: the origin comes from the Host header alone.
      app = await stack.start({
        AUTH_SECRET_FILE: path.join(os.tmpdir(), `loyalty-auth-secret-host-${process.pid}-${backend}`),
        NEXTAUTH_URL: "",
      });
    });
    after(() => stack?.close());

    /** Asserts a redirect target stays on the app's origin. */
    const onSite = (target: string | null, what: string) => {
      assert.ok(target, `${what}: no redirect target`);
      const url = new URL(target, app.baseUrl);
      assert.equal(url.origin, app.baseUrl, `${what}: redirected to ${target}`);
    };

    test("a forged X-Forwarded-Host does not steer next-auth's redirects or URLs", async () => {
      const signin = await fetch(`${app.baseUrl}/api/auth/signin`, { headers: FORGED, redirect: "manual" });
      await signin.arrayBuffer();
      assert.ok(signin.status >= 300 && signin.status < 400, `signin page: ${signin.status}`);
      onSite(signin.headers.get("location"), "GET /api/auth/signin");
      const token = await csrf(app.baseUrl, FORGED);
      const ok = await attemptSignIn(app.baseUrl, email, PASSWORD, { headers: FORGED, token });
      assert.ok(ok.cookie, "signed in");
      onSite(ok.url, "credentials sign-in");
      const failed = await attemptSignIn(app.baseUrl, email, "not the password at all", { headers: FORGED, token });
      onSite(failed.url, "failed sign-in");
      const providers = (await (
        await fetch(`${app.baseUrl}/api/auth/providers`, { headers: FORGED })
      ).json()) as Record<string, { signinUrl: string }>;
      onSite(providers.credentials!.signinUrl, "providers' signinUrl");
    });

    test("a signed-out dashboard visit with a forged host is sent to this app's sign-in page", async () => {
      const res = await fetch(`${app.baseUrl}/dashboard`, { headers: FORGED, redirect: "manual" });
      await res.arrayBuffer();
      assert.ok(res.status >= 300 && res.status < 400, `${res.status}`);
      onSite(res.headers.get("location"), "/dashboard");
    });

    test("a malformed or foreign callbackUrl never answers 500 and never leaves the site", async () => {
      const token = await csrf(app.baseUrl);
      for (const callbackUrl of BAD_CALLBACKS) {
        const page = await fetch(`${app.baseUrl}/api/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`, {
          redirect: "manual",
        });
        await page.arrayBuffer();
        assert.ok(page.status < 500, `GET signin with ${callbackUrl}: ${page.status}`);
        if (page.status >= 300 && page.status < 400)
          onSite(page.headers.get("location"), `GET signin with ${callbackUrl}`);
        // The raw form, unencoded, as a hand-made link would carry it.
        const raw = await fetch(`${app.baseUrl}/api/auth/signin?callbackUrl=${callbackUrl.replace(/ /g, "%20")}`, {
          redirect: "manual",
        });
        await raw.arrayBuffer();
        assert.ok(raw.status < 500, `GET signin with raw ${callbackUrl}: ${raw.status}`);
        // Signing in costs a bcrypt: the sign-in paths get the values that matter most.
        if (!SIGN_IN_CALLBACKS.includes(callbackUrl)) continue;
        const res = await attemptSignIn(app.baseUrl, email, PASSWORD, { token, callbackUrl });
        assert.ok(res.status < 500, `sign-in with ${callbackUrl}: ${res.status}`);
        onSite(res.url, `sign-in with callbackUrl ${callbackUrl}`);
        // The same value in next-auth's callback-url cookie.
        const cookie = `${token.cookie}; next-auth.callback-url=${encodeURIComponent(callbackUrl)}`;
        const viaCookie = await attemptSignIn(app.baseUrl, email, PASSWORD, { token: { ...token, cookie } });
        assert.ok(viaCookie.status < 500, `sign-in with callback cookie ${callbackUrl}: ${viaCookie.status}`);
        onSite(viaCookie.url, `sign-in with callback cookie ${callbackUrl}`);
      }
      assert.doesNotMatch(app.logs(), /TypeError|Invalid URL/);
    });
  });
}
