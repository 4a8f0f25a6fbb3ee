import { expect, test, type Page } from "@playwright/test";
import { noHorizontalOverflow, shot, signIn } from "./helpers";

/**
 * Issue 25's journey: a manager makes a test copy of the demo program (tiers Bronze 0, Silver 1,000, Gold 5,000),
 * sets its points to expire after 12 months, creates an lk_test_ key in the dashboard and adds three customers through
 * the API at the copy's clock: Ana earns 1,200 (Silver), Cleo 6,000 (Gold), Ben is migrated on Gold with an opening
 * balance of 300 and earns nothing. Then the clock bar's "Advance to…" 13 months: the dry run's preview first
 * (7,500 points would expire, one tier change: Ben's Gold → Bronze at his period's close; nothing stored), then
 * Apply, and the clock page's timeline shows the expiries and the tier change. Screenshots at 1440 and 390 px.
 */

const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name, exact: true });

async function bothWidths(page: Page, name: string) {
  for (const size of [
    { label: "1440", width: 1440, height: 900 },
    { label: "phone", width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    await noHorizontalOverflow(page);
    await shot(page, `time-machine-${name}-${size.label}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** `iso` plus `months` calendar months (UTC), as a datetime-local value (minutes). */
const plusMonths = (iso: string, months: number) => {
  const d = new Date(iso);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.toISOString().slice(0, 16);
};

test("a manager advances a test copy's clock 13 months, dry run first, and sees expiry and tier changes", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, "manager");

  // The test copy, its points expiring after 12 months.
  await nav(page, "Settings").click();
  await expect(page).toHaveURL(/\/settings$/);
  const liveSettings = page.url();
  const copy = page.getByRole("form", { name: "Create a test copy" });
  await copy.getByLabel("Test program name").fill("Time machine (test)");
  await copy.getByRole("button", { name: "Create a test copy" }).click();
  await expect(page).not.toHaveURL(liveSettings);
  await expect(page).toHaveURL(/\/dashboard\/[0-9a-f-]{36}\/settings$/);
  const programId = /\/dashboard\/([0-9a-f-]{36})\//.exec(page.url())![1]!;
  await expect(page.getByRole("status", { name: "Test program" })).toBeVisible();
  await page.getByRole("button", { name: "Edit settings" }).click();
  const settings = page.getByRole("dialog", { name: "Edit program settings" });
  await settings.getByLabel("Points expire after (months)").fill("12");
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Settings saved").first()).toBeVisible();
  await expect(settings).toHaveCount(0);

  // An lk_test_ key, created in the dashboard.
  await nav(page, "API keys").click();
  const newKey = page.getByRole("form", { name: "New API key" });
  await newKey.getByLabel("Name (who uses it)").fill("Time machine");
  await newKey.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-api-key").textContent())!.trim();
  expect(key).toMatch(/^lk_test_/);

  // Customers through the API, at the copy's clock.
  const api = async (method: string, path: string, data?: unknown) => {
    const res = await page.request.fetch(`/v1/programs/${programId}${path}`, {
      method,
      headers: { "api-key": key },
      data,
    });
    const text = await res.text();
    expect(res.status(), `${method} ${path}: ${text}`).toBeLessThan(300);
    return text ? JSON.parse(text) : null;
  };
  const tag = Date.now().toString(36);
  const ana = `ana.${tag}@example.com`;
  const ben = `ben.${tag}@example.com`;
  const cleo = `cleo.${tag}@example.com`;
  await api("POST", "/integrations/api", [
    ...[ana, ben, cleo].map((email) => ({ email, feature: "user", payload: { firstName: email.split(".")[0] } })),
    { email: ben, feature: "loyalty", payload: { balance: 300, memberSince: "2024-01-01", tierStatus: "Gold" } },
  ]);
  await api("POST", `/customers/${encodeURIComponent(ana)}/balance/increase`, { points: 1200 });
  await api("POST", `/customers/${encodeURIComponent(cleo)}/balance/increase`, { points: 6000 });
  const { now, mode } = (await api("GET", "/clock")) as { now: string; mode: string };
  expect(mode).toBe("test");

  // The clock bar: a dry run 13 months ahead first.
  await page.reload();
  const bar = page.getByRole("region", { name: "Test program clock" });
  await bar.getByRole("button", { name: "Advance to…" }).click();
  const target = plusMonths(now, 13);
  await bar.getByLabel("Advance to (UTC)").fill(target);
  await bar.getByRole("button", { name: "Preview (dry run)" }).click();
  const preview = bar.getByRole("region", { name: "Dry run preview" });
  await expect(preview).toBeVisible({ timeout: 30_000 });
  const would = preview.getByLabel("What the advance would do");
  const figure = (counts: typeof would, name: string) => counts.locator("div", { hasText: name }).locator("dd");
  await expect(figure(would, "Points expired")).toHaveText("7,500");
  await expect(figure(would, "Tier changes")).toHaveText("1");
  const previewRows = preview.getByRole("table", { name: "Dry run timeline" }).getByRole("row");
  await expect(previewRows.filter({ hasText: ben }).filter({ hasText: "Gold → Bronze" })).toHaveCount(1);
  await bothWidths(page, "preview");
  expect(((await api("GET", "/clock")) as { now: string }).now, "a dry run moves nothing").toBe(now);

  // Apply: the real advance.
  await preview.getByRole("button", { name: /^Apply: advance to/ }).click();
  await bar.getByRole("link", { name: "See its timeline" }).click({ timeout: 60_000 });
  await expect(page).toHaveURL(new RegExp(`/dashboard/${programId}/clock\\?advance=`));
  expect(((await api("GET", "/clock")) as { now: string }).now).toBe(`${target}:00.000Z`);
  await expect(page.getByRole("status", { name: "Test program" }).locator("time")).toHaveAttribute(
    "datetime",
    `${target}:00.000Z`,
  );

  // The clock page: the advance, its counts, its timeline, the chart.
  await expect(page.getByRole("heading", { name: "Test clock", level: 1 })).toBeVisible();
  const did = page.getByLabel("What this advance did");
  await expect(figure(did, "Points expired")).toHaveText("7,500");
  await expect(figure(did, "Tier changes")).toHaveText("1");
  const timeline = page.getByRole("table", { name: "Clock timeline" });
  await expect(timeline.getByRole("row").filter({ hasText: "Points expired" })).toHaveCount(3);
  await expect(timeline.getByRole("row").filter({ hasText: ben }).filter({ hasText: "Gold → Bronze" })).toHaveCount(1);
  await expect(timeline.getByRole("row").filter({ hasText: ana }).filter({ hasText: "Period closed" })).toHaveCount(1);
  await expect(page.getByRole("img", { name: /Bar chart of points expired per month/ })).toBeVisible();
  await expect(page.getByRole("img", { name: /0 up, 1 down/ })).toBeVisible();
  await bothWidths(page, "timeline");
});
