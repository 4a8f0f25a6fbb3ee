import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page } from "@playwright/test";

export interface Seed {
  programId: string;
  apiKey: string;
  sampleEmail: string;
  staff: { role: string; email: string; password: string }[];
}

/** What scripts/e2e-server.sh seeded into this run's database. */
export function seed(): Seed {
  return JSON.parse(readFileSync(path.join(process.env.E2E_PGLITE_DIR!, "seed.json"), "utf8"));
}

export async function signIn(page: Page, role: string) {
  const account = seed().staff.find((s) => s.role === role)!;
  await page.goto("/signin");
  await page.getByLabel("E-mail").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeVisible();
  return account;
}

export const shot = (page: Page, name: string) => page.screenshot({ path: `e2e/screenshots/${name}.png`, fullPage: true });
