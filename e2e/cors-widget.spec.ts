import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { seed, shot, signIn } from "./helpers";

// A shop's widget calls /me from its own origin with a customer token (issue 26 item 2): the owner allows the shop's
// origin in Settings; a page served from it reads /me and sends a POST with the preflighted headers; a page of
// another origin gets nothing (Chromium blocks the answer). Both pages come from tiny node:http servers on other
// ports of 127.0.0.1 (another port is another origin).

function pageServer(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>Shop</title><p>Shop");
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

test("a page of an allowed origin calls /me with a customer token; another origin is blocked", async ({
  page,
  request,
  baseURL,
}) => {
  const { programId, apiKey, sampleEmail } = seed();
  const shop = await pageServer();
  const elsewhere = await pageServer();
  try {
    await signIn(page, "owner");
    await page.goto(`/dashboard/${programId}/settings`);
    await page.getByRole("button", { name: "Edit settings" }).click();
    const settings = page.getByRole("dialog", { name: "Edit program settings" });
    const origins = settings.getByLabel("Web origins allowed to call /me");
    await origins.fill("not an origin");
    await settings.getByRole("button", { name: "Save settings" }).click();
    await expect(settings.getByRole("alert").filter({ hasText: "is not an origin" })).toBeVisible();
    await origins.fill(`${shop.origin}\nhttps://shop.example.com`);
    await shot(page, "settings-allowed-origins", { fullPage: false });
    await settings.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Settings saved").first()).toBeVisible();
    await expect(settings).toHaveCount(0);
    await expect(page.getByText(`${shop.origin}, https://shop.example.com`)).toBeVisible();

    const v1 = `${baseURL}/v1/programs/${programId}`;
    const tokenRes = await request.get(`${v1}/customers/${encodeURIComponent(sampleEmail)}/token`, {
      headers: { "api-key": apiKey },
    });
    expect(tokenRes.status()).toBe(200);
    const { token } = (await tokenRes.json()) as { token: string };

    /** A GET of /me and a POST of /me redeem (preflighted: Authorization, Content-Type, Idempotency-Key), from the page. */
    const widgetCalls = (origin: string) =>
      page.goto(`${origin}/`).then(() =>
        page.evaluate(
          async ({ v1, token }) => {
            const attempt = async (init: RequestInit, path: string) => {
              try {
                const res = await fetch(`${v1}${path}`, init);
                return { status: res.status, body: await res.json(), requestId: res.headers.get("x-request-id") };
              } catch (err) {
                return { error: String(err) };
              }
            };
            const auth = { Authorization: `Bearer ${token}` };
            return {
              me: await attempt({ headers: auth }, "/me"),
              redeem: await attempt(
                {
                  method: "POST",
                  headers: { ...auth, "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
                  body: "{}",
                },
                "/me/rewards/00000000-0000-4000-8000-000000000000/redeem",
              ),
            };
          },
          { v1, token },
        ),
      );

    const allowed = await widgetCalls(shop.origin);
    expect(allowed.me).toMatchObject({ status: 200, body: { email: sampleEmail } });
    expect((allowed.me as { requestId: string }).requestId).toBeTruthy(); // an exposed header
    // The preflight let the POST through; the answer (an unknown reward) is readable by the page.
    expect(allowed.redeem).toMatchObject({ status: 404, body: { code: "reward_not_found" } });

    const blocked = await widgetCalls(elsewhere.origin);
    expect(blocked.me).toEqual({ error: "TypeError: Failed to fetch" });
    expect(blocked.redeem).toEqual({ error: "TypeError: Failed to fetch" });

    // Put the setting back for the other specs.
    await page.goto(`${baseURL}/dashboard/${programId}/settings`);
    await page.getByRole("button", { name: "Edit settings" }).click();
    await page
      .getByRole("dialog", { name: "Edit program settings" })
      .getByLabel("Web origins allowed to call /me")
      .fill("");
    await page
      .getByRole("dialog", { name: "Edit program settings" })
      .getByRole("button", { name: "Save settings" })
      .click();
    await expect(page.getByText("Settings saved").first()).toBeVisible();
  } finally {
    await shop.close();
    await elsewhere.close();
  }
});
