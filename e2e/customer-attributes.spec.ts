import { expect, test } from "@playwright/test";
import { seed, shot, signIn } from "./helpers";

// Issue 24: staff edit a customer's declared attributes in the "User data" form; the API shows what they saved.

test("support edits a declared customer attribute on the customer page, and the API shows it", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const { programId, apiKey, sampleEmail } = seed();
  const headers = { "api-key": apiKey };
  const base = `/v1/programs/${programId}`;
  expect(
    (
      await page.request.put(`${base}/customer-attributes/favouriteStore`, { headers, data: { type: "string" } })
    ).status(),
  ).toBe(200);
  expect(
    (await page.request.put(`${base}/customer-attributes/visits`, { headers, data: { type: "number" } })).status(),
  ).toBe(200);
  const set = await page.request.post(`${base}/integrations/api`, {
    headers,
    data: [{ email: sampleEmail, feature: "user", payload: { customAttributes: { favouriteStore: "Madrid" } } }],
  });
  expect(set.status()).toBe(201);

  await signIn(page, "support");
  await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(sampleEmail)}`);
  await page.getByRole("link", { name: sampleEmail }).click();
  const form = page.getByRole("form", { name: "User data" });
  await expect(form.getByLabel("favouriteStore")).toHaveValue("Madrid");
  await form.getByLabel("favouriteStore").fill("Sevilla");
  await form.getByLabel("visits").fill("12");
  await form.getByRole("button", { name: "Save user data" }).click();
  await expect(page.getByText("User data saved")).toBeVisible();
  await shot(page, "customer-attributes-edit");

  const got = await page.request.get(`${base}/customers/${encodeURIComponent(sampleEmail)}`, { headers });
  expect(((await got.json()) as { customAttributes: unknown }).customAttributes).toEqual({
    favouriteStore: "Sevilla",
    visits: 12,
  });
});
