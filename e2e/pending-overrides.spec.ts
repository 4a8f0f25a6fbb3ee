import { expect, test } from "@playwright/test";
import { seed, shot, signIn } from "./helpers";

// Issue 27's pending overrides as a manager sets them: an earning flow whose points stay pending until the order is
// confirmed (the list says so), and the campaign builder's "New points are" field (14 days, in the /v1 body).

test("a manager makes a flow's points pending until confirmed and a campaign's pending for 14 days", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const { programId, apiKey } = seed();
  // A fresh server renders the first page slowly: more time than signIn's default.
  await signIn(page, "manager", { timeout: 30_000 });

  await page.goto(`/dashboard/${programId}/earning-flows`);
  const key = `delivered-${Date.now() % 1_000_000}`;
  const form = page.getByRole("form", { name: "New earning flow" });
  await form.getByLabel("Key").fill(key);
  await form.getByLabel("Points", { exact: true }).fill("25");
  await form.getByLabel("New points are").selectOption("until_confirmed");
  await form.getByRole("button", { name: "Create earning flow" }).click();
  await expect(page.getByTestId(`flow-${key}`)).toContainText("pending until the order is confirmed");
  await page.getByTestId(`flow-${key}`).scrollIntoViewIfNeeded();
  await shot(page, "pending-override-flow", { fullPage: false });

  // The builder needs an event trigger (a lifecycle campaign's points are never pending: the field is not offered).
  const declared = await page.request.put(`/v1/programs/${programId}/event-types/pending.order`, {
    headers: { "api-key": apiKey },
    data: { attributes: { total: { type: "number", required: true } } },
  });
  expect(declared.status()).toBe(200);
  await page.goto(`/dashboard/${programId}/campaigns`);
  const builder = page.getByRole("form", { name: "New campaign" });
  await builder.getByLabel("Trigger", { exact: true }).selectOption("pending.order");
  await builder.getByLabel("New points are").selectOption("days");
  await builder.getByLabel("Pending days").fill("14");
  await builder.getByLabel("New points are").scrollIntoViewIfNeeded();
  await shot(page, "pending-override-campaign-builder", { fullPage: false });
  await builder.getByRole("button", { name: "JSON", exact: true }).click();
  await expect(builder.getByLabel("Campaign as JSON (the /v1 campaign body)")).toHaveValue(/"pendingDays": 14/);
});
