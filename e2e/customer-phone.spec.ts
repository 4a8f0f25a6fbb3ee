import { expect, test } from "@playwright/test";
import { sampleCustomerJson, seed, shot, signIn } from "./helpers";

// Issue 28: on a phone the customer page opens with a compact summary, and the destructive action (delete the
// customer) is not among the routine actions but in a danger zone at the end of the page.

test.use({ viewport: { width: 390, height: 844 } });

test("on a phone the customer page opens with a summary; delete is in the danger zone at the end", async ({ page }) => {
  const { programId } = seed();
  await signIn(page, "manager");
  const { id } = await sampleCustomerJson(page);
  await page.goto(`/dashboard/${programId}/customers/${id}`);

  const summary = page.getByRole("region", { name: "Summary" });
  await expect(summary).toBeInViewport();
  await expect(summary.getByText("Balance")).toBeVisible();
  await expect(
    page.getByRole("region", { name: "Actions" }).getByRole("form", { name: "Delete customer" }),
  ).toHaveCount(0);
  const danger = page.getByRole("region", { name: "Danger zone" });
  await expect(danger.getByRole("form", { name: "Delete customer" })).toBeAttached();
  await expect(danger).not.toBeInViewport();
  await shot(page, "customer-phone-first-screen", { fullPage: false });

  // The danger zone is the last thing on the page, below the history and the profile.
  const bottom = async (name: string) => {
    const box = await page.getByRole("region", { name }).boundingBox();
    return box!.y + box!.height;
  };
  const dangerTop = (await danger.boundingBox())!.y;
  expect(dangerTop).toBeGreaterThan(await bottom("Timeline"));
  expect(dangerTop).toBeGreaterThan(await bottom("User data"));

  // The summary's link jumps there.
  await summary.getByRole("link", { name: "Danger zone" }).click();
  await expect(danger).toBeInViewport();
  await shot(page, "customer-phone-danger-zone", { fullPage: false });
  await shot(page, "customer-phone");
});
