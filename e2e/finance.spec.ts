import { expect, test, type Page } from "@playwright/test";
import { noHorizontalOverflow, seed, shot, signIn } from "./helpers";

// Issue 27 as a manager meets it: the Finance page (the books per day: charts, summary, the day table and its CSV
// export) and the Settings page's "Points: pending and expiry" card (a pending period changed, the saved value shown
// with the statement that a change applies to points earned after it). The pending period is put back at the end:
// the demo program is shared with the other journeys.

async function setPendingDays(page: Page, days: string) {
  await page.getByRole("button", { name: "Edit pending points and expiry" }).click();
  const form = page.getByRole("form", { name: "Pending points and expiry" });
  const before = await form.getByLabel("Pending period (days)").inputValue();
  await form.getByLabel("Pending period (days)").fill(days);
  await form.getByRole("button", { name: "Save pending points and expiry" }).click();
  await expect(page.getByText("Points policy saved").first()).toBeVisible();
  await expect(form).toHaveCount(0);
  return before;
}

test("a manager reads the Finance page, exports its days, and changes the pending period in Settings", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const { programId } = seed();
  // A fresh server renders the first page slowly: more time than signIn's default.
  await signIn(page, "manager", { timeout: 30_000 });

  await page.goto(`/dashboard/${programId}/finance`);
  await expect(page.getByRole("heading", { name: "Finance", level: 1 })).toBeVisible();
  // The summary: the period's books, closing outstanding a number.
  for (const label of ["Opening outstanding", "Earned", "Redeemed", "Expired", "Closing outstanding", "Breakage"])
    await expect(page.getByText(label, { exact: true }).first()).toBeVisible();
  // The charts are drawn (an SVG with a line), not only titled.
  await expect(page.getByText("Outstanding points at the end of each day").first()).toBeVisible();
  await expect(page.getByText("Points in and out per day").first()).toBeVisible();
  await expect(page.locator("svg path.recharts-curve").first()).toBeVisible();
  // The day table: one row per day of the default 30-day range.
  const days = page.getByRole("region", { name: "Points accounting: days" });
  await expect(days).toBeVisible();
  expect(await days.locator("tbody tr").count()).toBeGreaterThanOrEqual(28);
  await noHorizontalOverflow(page);
  await shot(page, "finance-manager");

  // Export CSV starts: a file of the days comes down, named after the export.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: /^Export days of points accounting as CSV$/ }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/\.csv$/);
  await expect(page.getByText(/^Exported \d+ days of points accounting\.$/).first()).toBeVisible();

  // Settings: the card says what the pending setting is and what a change does.
  await page.goto(`/dashboard/${programId}/settings`);
  const card = page.getByRole("region", { name: "Points: pending and expiry" });
  const statement = page.getByText(/A change applies to points earned after it/);
  await expect(statement).toBeVisible();
  const before = await setPendingDays(page, "14");
  try {
    await expect(card.getByText("pending for 14 days; tier points count when they mature").first()).toBeVisible();
    await expect(statement).toBeVisible();
    await statement.scrollIntoViewIfNeeded();
    await shot(page, "settings-points-pending-14-days", { fullPage: false });
    // Read again from the server: the saved value, not the form's memory.
    await page.reload();
    await expect(page.getByText("pending for 14 days; tier points count when they mature").first()).toBeVisible();
  } finally {
    await setPendingDays(page, before);
  }
  await expect(
    page.getByText(before === "0" ? "spendable at once" : `pending for ${before} days`).first(),
  ).toBeVisible();
});
