import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { expect, test, type Download, type Page } from "@playwright/test";
import { noHorizontalOverflow, seed, shot, signIn } from "./helpers";

// Reports and exports as a manager uses them: pick a period, read the comparison with the previous one, save a
// chart's data and the customers and ledger exports; every file is parsed and checked against the API's answers
// for the same customers (the database, through /v1), not against the page that made it.

type Row = Record<string, string>;

async function csvOf(download: Download): Promise<Row[]> {
  const file = await download.path();
  return parse(readFileSync(file!, "utf8"), { columns: true, skip_empty_lines: true }) as Row[];
}

async function saved(page: Page, click: () => Promise<void>) {
  const [download] = await Promise.all([page.waitForEvent("download"), click()]);
  return download;
}

const number = (text: string | null) => Number((text ?? "").replace(/[^\d-]/g, ""));

async function api(page: Page, path: string) {
  const { programId, apiKey } = seed();
  const res = await page.request.get(`/v1/programs/${programId}${path}`, { headers: { "api-key": apiKey } });
  expect(res.status()).toBe(200);
  return res.json();
}

test("a manager picks a period, compares it with the one before, and exports chart data, customers and the ledger", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const { programId, sampleEmail } = seed();
  // A fresh server renders the first page slowly: more time than signIn's default.
  await signIn(page, "manager", { timeout: 30_000 });

  // A preset: the URL holds the range, the period and its predecessor are named, every figure has its comparison.
  await page.getByRole("navigation", { name: "Report period" }).getByRole("link", { name: "90 days" }).click();
  await expect(page).toHaveURL(/range=90d/);
  await expect(page.getByText(/\(90 days, UTC\) compared with/)).toBeVisible();
  const issuedCard = page.getByText("Points issued", { exact: true }).locator("..");
  await expect(issuedCard.getByText(/vs previous/)).toBeVisible();
  const issued = number(await issuedCard.locator("p").nth(1).textContent());
  expect(issued).toBeGreaterThan(0);
  await expect(page.getByText("Redemption rate", { exact: true })).toBeVisible();
  await expect(page.getByText("Outstanding points", { exact: true }).first()).toBeVisible();

  // A chart's data as CSV: one row per day of the period, adding up to the figure above it.
  const chart = await csvOf(
    await saved(page, () =>
      page.getByRole("button", { name: "Download CSV: Points issued, redeemed and expired per day" }).click(),
    ),
  );
  expect(chart.length).toBe(90);
  expect(Object.keys(chart[0]!)).toEqual(["day", "issued", "redeemed", "expired"]);
  expect(chart.reduce((s, r) => s + Number(r.issued), 0)).toBe(issued);
  // The tier chart counts every tier, with its number written next to its bar.
  const tiers = await csvOf(
    await saved(page, () => page.getByRole("button", { name: "Download CSV: Tier distribution (today)" }).click()),
  );
  expect(tiers.map((t) => t.tier)).toEqual(expect.arrayContaining(["Bronze", "Silver", "Gold"]));

  // A custom range is URL state too.
  const form = page.getByRole("form", { name: "Custom period" });
  await form.getByLabel("From").fill("2026-01-01");
  await form.getByLabel("To").fill("2026-01-31");
  await form.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(/range=custom&from=2026-01-01&to=2026-01-31/);
  await expect(page.getByText(/\(31 days, UTC\) compared with 2025-12-01 – 2025-12-31/)).toBeVisible();

  // The ledger of the last 365 days, streamed with a progress bar, compared entry by entry with the API's history
  // of one customer.
  await page.getByRole("navigation", { name: "Report period" }).getByRole("link", { name: "365 days" }).click();
  await expect(page).toHaveURL(/range=365d/);
  const ledger = await csvOf(
    await saved(page, () => page.getByRole("button", { name: "Export points ledger as CSV" }).click()),
  );
  const mine = ledger.filter((r) => r.email === sampleEmail);
  expect(mine.length).toBeGreaterThan(0);
  const history = (await api(page, `/customers/${encodeURIComponent(sampleEmail)}/transactions?limit=100`)) as {
    data: { id: string; points: number; balanceAfter: number; type: string }[];
  };
  expect(new Set(mine.map((r) => r.id))).toEqual(new Set(history.data.map((t) => t.id)));
  for (const t of history.data) {
    const row = mine.find((r) => r.id === t.id)!;
    expect([Number(row.points), Number(row.balanceAfter), row.type]).toEqual([t.points, t.balanceAfter, t.type]);
  }

  // The customers list's current filter, exported: the same customers, with the balance and tier the API gives.
  const prefix = sampleEmail.slice(0, 4);
  await page.goto(`/dashboard/${programId}/customers?q=${encodeURIComponent(prefix)}`);
  const listed = await page.getByRole("table", { name: "Customers" }).locator("tbody tr").count();
  const customers = await csvOf(
    await saved(page, () => page.getByRole("button", { name: "Export customers as CSV" }).click()),
  );
  expect(customers.length).toBeGreaterThan(0);
  if (listed < 25) expect(customers.length).toBe(listed);
  expect(customers.every((c) => c.email!.startsWith(prefix))).toBe(true);
  for (const c of customers.slice(0, 5)) {
    const body = (await api(page, `/customers/${encodeURIComponent(c.email!)}`)) as {
      id: string;
      loyaltyData: { balance: number };
      customerTier: { currentTier: { name: string } | null };
    };
    expect([c.id, Number(c.balance), c.tier || null]).toEqual([
      body.id,
      body.loyaltyData.balance,
      body.customerTier.currentTier?.name ?? null,
    ]);
  }
});

test("the reports page at 1440 px and 390 px", async ({ page }) => {
  const { programId } = seed();
  await signIn(page, "manager");
  for (const size of [
    { name: "desktop", width: 1440, height: 900 },
    { name: "phone", width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    await page.goto(`/dashboard/${programId}?range=30d`);
    await expect(page.locator(".recharts-surface").first()).toBeVisible();
    await page.getByText("Show the data as a table").first().click();
    await noHorizontalOverflow(page);
    await shot(page, `reports-${size.name}`);
  }
});
