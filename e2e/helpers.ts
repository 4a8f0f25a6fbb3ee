import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page } from "@playwright/test";

export interface Seed {
  programId: string;
  apiKey: string;
  sampleEmail: string;
  staff: { role: string; email: string; password: string; name?: string }[];
  /** A second program in which the demo owner is a viewer (for the program switcher). */
  secondProgram?: { programId: string; name: string };
}

/** What scripts/e2e-server.sh seeded into this run's database. */
export function seed(): Seed {
  return JSON.parse(readFileSync(path.join(process.env.E2E_PGLITE_DIR!, "seed.json"), "utf8"));
}

/** The seeded sample customer as `GET /v1/…/customers/{email}` answers them (the page's request context). */
export async function sampleCustomerJson<T = { id: string }>(page: Page): Promise<T> {
  const { programId, apiKey, sampleEmail } = seed();
  const res = await page.request.get(`/v1/programs/${programId}/customers/${encodeURIComponent(sampleEmail)}`, {
    headers: { "api-key": apiKey },
  });
  return (await res.json()) as T;
}

export async function signIn(page: Page, role: string, options: { timeout?: number } = {}) {
  const account = seed().staff.find((s) => s.role === role)!;
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeVisible(options);
  return account;
}

/**
 * A screenshot under e2e/screenshots/: the whole page from the top (so sticky headers sit where they belong),
 * or with `fullPage: false` just the viewport as it is scrolled.
 */
export async function shot(page: Page, name: string, options: { fullPage?: boolean } = {}) {
  const fullPage = options.fullPage ?? true;
  if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `e2e/screenshots/${name}.png`, fullPage });
}

/**
 * The headers a browser sends with a write from the app's own page (lib/staff/http.ts refuses writes without a
 * same-origin Origin): for `page.request` calls that stand in for a button's fetch.
 */
export const fromPage = (page: Page) => ({ origin: new URL(page.url()).origin });

/**
 * The page itself never scrolls sideways; on failure, some of the elements sticking out are named. Charts resize on a
 * ResizeObserver callback after a viewport change, so the layout is given until the assertion timeout to settle (a
 * chart still at its old width fails once that time is up).
 */
export async function noHorizontalOverflow(page: Page) {
  const measure = () =>
    page.evaluate(() => {
      const overflow = document.documentElement.scrollWidth - window.innerWidth;
      const offenders: string[] = [];
      if (overflow > 1) {
        for (const el of Array.from(document.querySelectorAll("body *"))) {
          const box = el.getBoundingClientRect();
          if (box.right <= window.innerWidth + 1 || box.width === 0) continue;
          offenders.push(
            `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 80)} right=${Math.round(box.right)}`,
          );
        }
      }
      return { overflow, offenders: offenders.slice(-5) };
    });
  let last = await measure();
  await expect
    .poll(async () => (last = await measure()).overflow, { message: "the page scrolls sideways" })
    .toBeLessThanOrEqual(1)
    .catch(() => expect(last.overflow, last.offenders.join("\n")).toBeLessThanOrEqual(1));
}
