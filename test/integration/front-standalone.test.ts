/**
 * The container image's entry, without Docker (which cannot run here): the Dockerfile's build step
 * (`node scripts/standalone.mjs <dir>`) assembles the standalone directory outside the repository, so nothing can
 * resolve from the repository's node_modules, and its exact CMD (read from the Dockerfile) runs there against
 * an empty PostgreSQL database: the migrations apply (bundled runner, schema engine WebAssembly), then the server
 * answers /v1/openapi.json, a customer written and read with an API key, a dashboard page and its static files.
 * It stops on SIGTERM with exit 0.
 *
 * PostgreSQL only (the image's compose file runs PostgreSQL; a PGlite image would only differ in DATABASE_URL).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { apiClient } from "../support/api-client";
import { childEnv, loyaltyWith, ROOT } from "../support/cli";
import { requireBuild, waitFor } from "../support/app-process";

/** The image's CMD, exec form, as the Dockerfile says: `node` and its arguments. */
function imageCommand(): string[] {
  const lines = readFileSync(path.join(ROOT, "Dockerfile"), "utf8").split("\n");
  const cmd = lines.filter((l) => l.startsWith("CMD ")).at(-1);
  const argv = cmd ? (JSON.parse(cmd.slice(4)) as string[]) : [];
  assert.equal(argv[0], "node", `the image's CMD runs node: ${cmd}`);
  return argv;
}

const ADMIN_URL = process.env.TEST_DATABASE_URL;

describe("The container entry on the standalone output [postgres]", { skip: !ADMIN_URL }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "loyalty-standalone-"));
  const database = `standalone_${process.pid}_${Date.now()}`;
  let databaseUrl: string;
  let child: ChildProcess;
  let output = "";
  let exited: Promise<number | null>;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;

  before(async () => {
    requireBuild();
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const url = new URL(ADMIN_URL!);
    url.pathname = `/${database}`;
    databaseUrl = url.href;

    const assembled = spawnSync(process.execPath, ["scripts/standalone.mjs", dir], { cwd: ROOT, encoding: "utf8" });
    assert.equal(assembled.status, 0, assembled.stderr + assembled.stdout);

    // The image's environment (Dockerfile ENV) and CMD, in the image's working directory.
    child = spawn(process.execPath, imageCommand().slice(1), {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        HOST: "127.0.0.1",
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        LOYALTY_WORKERS: "2",
        LOYALTY_JOBS: "off",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`the entry exited (${child.exitCode}):\n${output}`);
        return (output.match(/"msg":"listening"/g) ?? []).length === 2;
      },
      "both workers of the standalone server to listen",
      90_000,
    );
  });

  after(async () => {
    if (child && child.exitCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
    if (process.env.TEST_SHOW_LOGS === "1") console.error(output);
    rmSync(dir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  test("migrations applied by the entry, then the OpenAPI document, a customer, a page and its static files", async () => {
    assert.match(output, /db:migrate: applied \d+ migration/);
    const doc = await fetch(`${base}/v1/openapi.json`);
    assert.equal(doc.status, 200);
    assert.equal(((await doc.json()) as { openapi: string }).openapi, "3.1.0");

    const env = childEnv({ DATABASE_URL: databaseUrl });
    const { programId } = (await loyaltyWith(env, ["program", "create", "--name", "Image"])) as { programId: string };
    const { key } = (await loyaltyWith(env, ["apikey", "create", "--program", programId, "--name", "image"])) as {
      key: string;
    };
    const api = apiClient(base, key);
    const created = await api("POST", `/v1/programs/${programId}/integrations/api`, {
      body: [{ email: "image@example.com", feature: "user", payload: { firstName: "Ima" } }],
    });
    assert.equal(created.status, 201, created.text);
    const read = await api("GET", `/v1/programs/${programId}/customers/image%40example.com`);
    assert.equal(read.status, 200, read.text);
    assert.equal((read.json as { userData: { firstName: string } }).userData.firstName, "Ima");

    const page = await fetch(`${base}/signin`);
    assert.equal(page.status, 200);
    const html = await page.text();
    const asset = /\/_next\/static\/[^"']+\.(js|css)/.exec(html)?.[0];
    assert.ok(asset, "the page references its static files");
    assert.equal((await fetch(`${base}${asset}`)).status, 200, asset);
  });

  test("SIGTERM stops it with exit 0", async () => {
    child.kill("SIGTERM");
    assert.equal(await exited, 0, output);
  });
});
