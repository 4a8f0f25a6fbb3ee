import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";

const screenshotPath = fileURLToPath(new URL("./screenshots/home.png", import.meta.url));

test("home page renders a heading and links to the API reference", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));

  const response = await page.goto("/");
  expect(response?.status()).toBe(200);

  await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();

  // Either a direct link to the OpenAPI document or a link to a docs page that links it.
  const apiLink = page.getByRole("link", { name: /api reference/i }).first();
  await expect(apiLink).toBeVisible();
  const href = (await apiLink.getAttribute("href")) ?? "";
  if (!href.includes("/v1/openapi.json")) {
    await page.goto(href);
    await expect(page.locator('a[href*="/v1/openapi.json"]').first()).toBeAttached();
    await page.goto("/");
  }

  await page.screenshot({ path: screenshotPath, fullPage: true });
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});

test("the API reference is served as an OpenAPI document", async ({ request }) => {
  const res = await request.get("/v1/openapi.json");
  expect(res.status()).toBe(200);
  const doc = (await res.json()) as { openapi?: string; paths?: Record<string, unknown> };
  expect(doc.openapi).toMatch(/^3\./);
  expect(Object.keys(doc.paths ?? {}).length).toBeGreaterThan(0);
});
