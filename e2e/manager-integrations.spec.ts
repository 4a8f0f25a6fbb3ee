import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import { expect, test, type Page } from "@playwright/test";
import { noHorizontalOverflow, seed, shot, signIn } from "./helpers";

// A manager sets up the program's integrations in the browser: an API key with its rate and burst (then changed),
// a webhook to a receiver this test runs on 127.0.0.1 (the e2e server runs the outbox and allows loopback http),
// subscribed to two event types; a test event that really arrives, signed, and whose delivery page shows the exact
// body; a secret rotation; disabling the webhook. Screenshots at 1440 and 390 px.

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** `loyalty-signature: t=…,v1=…[,v1=…]`: does any v1 match `secret`? */
function signedWith(secret: string, header: string | string[] | undefined, body: string) {
  if (typeof header !== "string") return false;
  const parts = header.split(",").map((kv) => kv.split("=") as [string, string]);
  const t = parts.find(([k]) => k === "t")?.[1];
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  return parts
    .filter(([k, v]) => k === "v1" && /^[0-9a-f]{64}$/.test(v))
    .some(([, v]) => timingSafeEqual(Buffer.from(v, "hex"), expected));
}

let server: http.Server;
const received: Received[] = [];
let receiverUrl = "";

test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/loyalty-events`;
});
test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function bothWidths(page: Page, name: string) {
  for (const size of [
    { label: "desktop", width: 1440, height: 900 },
    { label: "phone", width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    await noHorizontalOverflow(page);
    await shot(page, `integrations-${size.label}-${name}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test("a manager sets up a key and a webhook, sends a test event that arrives, rotates and disables", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const { programId } = seed();
  await signIn(page, "manager");
  page.on("dialog", (dialog) => dialog.accept());

  // An API key with its own rate and burst, then a lower burst.
  await page.goto(`/dashboard/${programId}/api-keys`);
  const newKey = page.getByRole("form", { name: "New API key" });
  await newKey.getByLabel("Name (who uses it)").fill("Checkout kiosk");
  await newKey.getByLabel("Requests per second").fill("5");
  await newKey.getByLabel("Burst (at once)").fill("20");
  await newKey.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-api-key")).toHaveText(/^lk_live_/);
  const keyRow = page.getByRole("main").getByRole("listitem").filter({ hasText: "Checkout kiosk" });
  await expect(keyRow).toContainText("5/s, burst 20");
  await keyRow.getByText("Change limits").click();
  const limits = page.getByRole("form", { name: "Limits of Checkout kiosk" });
  await limits.getByLabel("Burst (at once)").fill("8");
  await limits.getByRole("button", { name: "Save limits" }).click();
  await expect(keyRow).toContainText("5/s, burst 8");
  await bothWidths(page, "api-keys");

  // A webhook to the local receiver, for two event types.
  await page.goto(`/dashboard/${programId}/webhooks`);
  const newHook = page.getByRole("form", { name: "New webhook" });
  await newHook.getByLabel("Webhook URL").fill(receiverUrl);
  await newHook.getByLabel("balance.changed").check();
  await newHook.getByLabel("reward.redeemed").check();
  await newHook.getByRole("button", { name: "Add webhook" }).click();
  const secret = (await page.getByTestId("new-webhook-secret").textContent())!;
  expect(secret).toMatch(/^whsec_/);
  const hookRow = page
    .getByRole("list", { name: "Webhook endpoints" })
    .getByRole("listitem")
    .filter({ hasText: receiverUrl });
  await expect(hookRow).toContainText("Events: balance.changed, reward.redeemed");

  // The test event arrives, signed with the secret shown once.
  await hookRow.getByRole("button", { name: `Send a test event to ${receiverUrl}` }).click();
  await expect.poll(() => received.length, { timeout: 20_000 }).toBe(1);
  const test1 = received[0]!;
  expect(JSON.parse(test1.body)).toMatchObject({ type: "webhook.test", programId });
  expect(signedWith(secret, test1.headers["loyalty-signature"], test1.body)).toBe(true);

  // The delivery log shows it delivered; it opens to the exact body that was signed.
  await expect(async () => {
    await page.reload();
    const log = page.getByRole("table", { name: "Deliveries" });
    await expect(log.getByRole("row").filter({ hasText: "webhook.test" }).first()).toContainText("delivered", {
      timeout: 1_000,
    });
  }).toPass({ timeout: 20_000 });
  await page
    .getByRole("link", { name: /^Payload of webhook\.test delivery/ })
    .first()
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Delivery" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Exact body of the delivery" })).toHaveText(test1.body);
  await page.getByRole("region", { name: "Indented body of the delivery" }).focus();
  await expect(page.getByRole("region", { name: "Indented body of the delivery" })).toBeFocused();
  await bothWidths(page, "delivery");

  // Rotation: a new secret, shown once; the next delivery is signed with both while the old one stays valid.
  await page.goto(`/dashboard/${programId}/webhooks`);
  await hookRow.getByText("Rotate signing secret").click();
  await hookRow.getByLabel("Keep the old secret valid for").selectOption({ label: "24 hours" });
  await hookRow.getByRole("button", { name: "Rotate secret" }).click();
  const rotated = (await hookRow.getByTestId(/^rotated-secret-/).textContent())!;
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(secret);
  await expect(hookRow).toContainText("old secret valid until");
  await hookRow.getByRole("button", { name: `Send a test event to ${receiverUrl}` }).click();
  await expect.poll(() => received.length, { timeout: 20_000 }).toBe(2);
  const test2 = received[1]!;
  expect(signedWith(rotated, test2.headers["loyalty-signature"], test2.body)).toBe(true);
  expect(signedWith(secret, test2.headers["loyalty-signature"], test2.body)).toBe(true);
  await hookRow.getByText("Change events").click();
  await bothWidths(page, "webhooks");

  // Disabled: no more test events, and the badge says so.
  await hookRow.getByRole("button", { name: `Disable webhook ${receiverUrl}` }).click();
  await expect(hookRow.getByRole("button", { name: `Enable webhook ${receiverUrl}` })).toBeVisible();
  await expect(hookRow).toContainText("disabled");
  await expect(hookRow.getByRole("button", { name: `Send a test event to ${receiverUrl}` })).toHaveCount(0);
});

test("a viewer reads the staff and webhooks pages without forms", async ({ page }) => {
  const { programId } = seed();
  await signIn(page, "viewer");
  const main = page.getByRole("main");
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Staff" }).click();
  await expect(main.getByRole("table", { name: "Staff members" })).toBeVisible();
  await expect(main.getByRole("form")).toHaveCount(0);
  await expect(main.getByRole("combobox")).toHaveCount(0);
  await expect(main.getByRole("button")).toHaveCount(0);
  await shot(page, "integrations-viewer-staff");
  await page.goto(`/dashboard/${programId}/webhooks`);
  await expect(main.getByRole("heading", { level: 1, name: "Webhooks & push" })).toBeVisible();
  await expect(main.getByRole("button", { name: /^Send a test event/ })).toHaveCount(0);
  await expect(main.getByText("Rotate signing secret")).toHaveCount(0);
  await expect(main.getByText("Change events")).toHaveCount(0);
});
