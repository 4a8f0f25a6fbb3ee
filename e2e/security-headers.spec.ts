import { expect, test, type Page } from "@playwright/test";
import { seed, signIn } from "./helpers";

/**
 * Security headers on pages and API answers, and every page working under the Content-Security-Policy: no CSP
 * violation (securitypolicyviolation events, console errors) on the public pages, the sign-in page and every
 * dashboard page an owner sees — the overview's recharts charts and the API reference included.
 */

const STATIC_HEADERS = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
};

function expectStaticHeaders(headers: Record<string, string>, what: string) {
  for (const [name, value] of Object.entries(STATIC_HEADERS)) expect(headers[name], `${what}: ${name}`).toBe(value);
  expect(headers["permissions-policy"], `${what}: permissions-policy`).toContain("camera=()");
  expect(headers["content-security-policy"], `${what}: CSP`).toContain("frame-ancestors 'none'");
}

/** Records CSP violations and console errors of the page from the first script on. */
async function watch(page: Page) {
  const problems: string[] = [];
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      const w = window as unknown as { __csp?: string[] };
      (w.__csp ??= []).push(
        `${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`,
      );
    });
  });
  page.on("console", (msg) => {
    // Failed loads are listed by URL below; Chromium's own favicon request (the app has none) is not the page's.
    if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource"))
      problems.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("response", (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()} ${res.request().method()} ${res.url()}`);
  });
  return async () => [
    ...problems,
    ...((await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? [])) as string[]),
  ];
}

test("pages carry a nonce CSP that allows only the app's own scripts, and the static security headers", async ({
  page,
}) => {
  const response = await page.goto("/signin");
  const headers = response!.headers();
  expectStaticHeaders(headers, "/signin");
  const csp = headers["content-security-policy"]!;
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
  expect(nonce, csp).toBeTruthy();
  expect(csp).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
  expect(csp).not.toContain("unsafe-eval");
  expect(csp).toContain("object-src 'none'");
  // Every script Next.js rendered carries this request's nonce, and the next request gets another one.
  const scripts = await page.locator("script").evaluateAll((els) => els.map((e) => (e as HTMLScriptElement).nonce));
  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts.every((n) => n === nonce)).toBe(true);
  const again = await page.request.get("/signin");
  expect(again.headers()["content-security-policy"]).not.toContain(nonce!);
  // Plain http here: no HSTS (it is sent when the request came over https or NEXTAUTH_URL is https).
  expect(headers["strict-transport-security"]).toBeUndefined();
  // The server runs without a trusted proxy (TRUST_PROXY=0): a client's own X-Forwarded-Proto is not believed, so it
  // cannot turn HSTS on (issue 28; test/integration/threat-malformed-requests.test.ts too).
  const https = await page.request.get("/signin", { headers: { "x-forwarded-proto": "https" } });
  expect(https.headers()["strict-transport-security"]).toBeUndefined();
});

test("API answers carry the static headers and a no-content CSP, without a nonce", async ({ request }) => {
  for (const path of [
    "/v1/openapi.json",
    `/v1/programs/${seed().programId}/tiers`,
    "/api/auth/csrf",
    `/api/staff/${seed().programId}/search?q=a`,
  ]) {
    const res = await request.get(path);
    const headers = res.headers();
    expectStaticHeaders(headers, path);
    expect(headers["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  }
  // Without a trusted proxy a client's X-Forwarded-Proto is not believed: no HSTS from it.
  const https = await request.get("/v1/openapi.json", { headers: { "x-forwarded-proto": "https" } });
  expect(https.headers()["strict-transport-security"]).toBeUndefined();
});

test("the public pages and the sign-in page work under the CSP", async ({ page }) => {
  const problems = await watch(page);
  for (const path of ["/", "/docs", "/signin"]) {
    await page.goto(path);
    await expect(page.getByRole("heading").first()).toBeVisible();
  }
  // The sign-in form's script runs (a wrong password shows the inline error).
  await page.getByLabel("E-mail").fill("nobody@example.com");
  await page.getByLabel("Password").fill("not a password at all");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("do not match")).toBeVisible();
  // The refused sign-in itself is a 401 (and the browser logs it): anything else is a problem.
  expect((await problems()).filter((p) => !p.includes("401"))).toEqual([]);
});

test("every dashboard page works under the CSP: charts, tables, the API reference", async ({ page }) => {
  // Some sixteen first renders in one test: the default 60 s was nearly all used on a loaded machine.
  test.setTimeout(120_000);
  const problems = await watch(page);
  await signIn(page, "owner");
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  const links = await nav
    .getByRole("link")
    .evaluateAll((els) => els.map((e) => (e as HTMLAnchorElement).getAttribute("href")!));
  expect(links.length).toBeGreaterThanOrEqual(10);
  for (const href of links) {
    const res = await page.goto(href);
    expect(res?.status(), href).toBe(200);
    await expect(page.getByRole("heading").first()).toBeVisible();
  }
  // The overview's recharts charts render as SVG (their inline styles are allowed, their script is ours).
  await page.goto(links[0]!);
  await expect(page.locator(".recharts-wrapper svg").first()).toBeVisible();
  // Client-side navigation (scripts loaded by the nonced ones) works too.
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Customers" }).click();
  await expect(page).toHaveURL(/\/customers/);
  // The account page with a TOTP enrolment under way: its QR code, an inline svg drawn by the server.
  await page.goto("/account");
  await page.getByRole("button", { name: "Set up a second factor" }).click();
  await expect(page.getByRole("img", { name: /QR code of the otpauth/ })).toBeVisible();
  expect(await problems()).toEqual([]);
});

test("a page cannot be framed by another site", async ({ page }) => {
  const res = await page.goto("/signin");
  expect(res!.headers()["x-frame-options"]).toBe("DENY");
  await page.setContent(`<iframe id="f" src="${new URL("/signin", page.url()).href}"></iframe>`);
  const frame = page.frame({ url: /\/signin/ });
  // Blocked: Chromium leaves the frame without the page's content.
  const framed = frame
    ? await frame
        .getByRole("heading", { name: "Staff sign-in" })
        .count()
        .catch(() => 0)
    : 0;
  expect(framed).toBe(0);
});
