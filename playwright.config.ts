import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { defineConfig } from "@playwright/test";

// Browser tests run against the production build (`npm test` runs `next build` before `playwright test`)
// served by `npm start`, on Debian's Chromium (never a downloaded browser).

const port = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${port}`;

// A fresh embedded database per run. The config is evaluated in the runner and again in each worker;
// pinning the directory in process.env (inherited by workers) keeps them in agreement.
const dataRoot = path.resolve(".data");
if (!process.env.E2E_PGLITE_DIR) {
  // Runner process: drop leftovers of earlier runs (older than a day), then create this run's directory.
  try {
    for (const name of readdirSync(dataRoot)) {
      const dir = path.join(dataRoot, name);
      if (name.startsWith("e2e-") && Date.now() - statSync(dir).mtimeMs > 24 * 3600 * 1000) {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } catch {
    // .data does not exist yet
  }
  process.env.E2E_PGLITE_DIR = path.join(
    dataRoot,
    `e2e-${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}`,
  );
  mkdirSync(process.env.E2E_PGLITE_DIR, { recursive: true });
}

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  // The first request to each page of a fresh `next start` on a 2-core machine can take a few seconds.
  expect: { timeout: 10_000 },
  reporter: "list",
  use: {
    baseURL,
    browserName: "chromium",
    viewport: { width: 1280, height: 800 },
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: {
    // Migrates and seeds the run's fresh database, then serves the existing build (`npm test` builds first).
    command: "bash scripts/e2e-server.sh",
    url: baseURL,
    env: {
      PORT: String(port),
      PGLITE_DIR: process.env.E2E_PGLITE_DIR,
      DATABASE_URL: "", // always the fresh embedded database, even if the shell points at a server
      NEXT_TELEMETRY_DISABLED: "1",
      // The outbox runs, so a webhook's test event reaches the receiver a test starts (e2e/manager-integrations);
      // the tier and expiry jobs run once, 5 s after the start, and then not for a day.
      LOYALTY_JOBS: "on",
      LOYALTY_JOBS_INTERVAL_MS: "86400000",
      OUTBOX_INTERVAL_MS: "300",
      LOYALTY_ALLOW_HTTP_WEBHOOKS: "1",
      AUTH_SECRET_FILE: `${process.env.E2E_PGLITE_DIR}/auth-secret`,
      // The sign-in backoff's first step (1 s by default, doubling): short, so e2e/staff-unlock's ten guesses take
      // about 3 s of waiting instead of 31. The lock itself (the tenth failure) is unchanged.
      STAFF_SIGNIN_BACKOFF_BASE_MS: "100",
    },
    reuseExistingServer: false,
    timeout: 300_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
  },
});
