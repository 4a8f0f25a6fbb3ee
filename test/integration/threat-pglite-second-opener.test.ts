/**
 * Threat: a second process opens the embedded database (PGlite) directory while the server holds it: the admin
 * CLI run beside `npm start`, or a second server. Before lib/db/pglite-lock.ts the CLI exited 0 with a new id the
 * server never saw, and the directory could not be opened afterwards. Now every second opener fails at once,
 * naming the holder's pid and both ways forward, and the server's data stays whole. PGlite only.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { openStack, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { fixtures, program } from "../support/fixtures";

const ROOT = path.resolve(import.meta.dirname, "../..");

const SPEC = fixtures("second-opener", program("Held Program"));

/** A child process run to its end, with a deadline: a second opener must fail at once, not hang. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number) {
  const started = Date.now();
  return new Promise<{ code: number | null; output: string; ms: number }>((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: Date.now() - started });
    });
  });
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

const cli = (env: NodeJS.ProcessEnv, ...args: string[]) =>
  run(process.execPath, ["--no-warnings", "--import", "tsx", "scripts/cli.ts", ...args], env, 30_000);

function assertRefusal(output: string, holderPid: number) {
  assert.match(output, new RegExp(`process ${holderPid}\\b`), "names the holder's pid");
  assert.match(output, /stop that process/i, "says: stop the server");
  assert.match(output, /DATABASE_URL/, "says: use PostgreSQL through DATABASE_URL");
}

describe("Threat: a second process opens the server's PGlite directory [pglite]", () => {
  let stack: Stack<Fixtures<typeof SPEC>>;
  let app: AppInstance;
  let dir: string;
  let lockFile: string;
  let holderPid: number;

  before(async () => {
    stack = await openStack("pglite", SPEC);
    dir = stack.env.PGLITE_DIR!;
    lockFile = path.join(dir, "loyalty.lock");
    app = await stack.start();
    // The server takes the lock at startup (instrumentation.ts), before any request opened the database.
    holderPid = JSON.parse(readFileSync(lockFile, "utf8")).pid;
    // The production server (dist/main.mjs, what npm start runs) or `next start`.
    assert.match(
      readFileSync(`/proc/${holderPid}/cmdline`, "utf8"),
      /dist\/main\.mjs|next/,
      "the lock names the server's process",
    );
  });
  after(async () => {
    await stack?.close();
  });

  test("the admin CLI is refused at once, names the server's pid and both ways forward, and writes nothing", async () => {
    const r = await cli(stack.env, "program", "create", "--name", "Intruder");
    assert.notEqual(r.code, 0, r.output);
    assertRefusal(r.output, holderPid);
    assert.match(r.output, /"code":"database_locked"/, "the last line is the CLI's JSON error");
    assert.doesNotMatch(r.output, /"programId"/);
    assert.ok(r.ms < 15_000, `refused in ${r.ms} ms`);
  });

  test("a second server on the same directory exits at once with the same message", async () => {
    const env = { ...stack.env, LOYALTY_JOBS: "off" };
    const r = await run(
      path.join(ROOT, "node_modules/.bin/next"),
      ["start", "-p", String(await freePort()), "-H", "127.0.0.1"],
      env,
      30_000,
    );
    assert.equal(r.code, 1, r.output);
    assertRefusal(r.output, holderPid);
  });

  test("the server still serves and writes, and after it stops the directory opens with all of its data and none of the intruder's", async () => {
    const email = "kept@example.com";
    const created = await app.api("POST", `/v1/programs/${stack.programId}/integrations/api`, {
      body: [{ email, feature: "user", payload: {} }],
    });
    assert.equal(created.status, 201, created.text);
    const read = await app.api("GET", `/v1/programs/${stack.programId}/customers/${encodeURIComponent(email)}`);
    assert.equal(read.status, 200, read.text);

    await stack.stopAll();
    assert.equal(existsSync(lockFile), false, "the server released its lock when it stopped");
    const programs = await stack.query<{ name: string }>(`SELECT name FROM "Program" ORDER BY name`);
    assert.deepEqual(
      programs.map((p) => p.name),
      ["Held Program"],
    );
    const customers = await stack.query<{ email: string }>(`SELECT email FROM "Customer"`);
    assert.deepEqual(
      customers.map((c) => c.email),
      [email],
    );
  });

  test("a lock left by a process that died (kill -9) is taken over", async () => {
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => gone.once("close", r));
    writeFileSync(
      lockFile,
      JSON.stringify({
        pid: gone.pid,
        hostname: os.hostname(),
        bootId: null,
        procStart: null,
        startedAt: "then",
        command: "next start",
      }),
    );
    const r = await cli(stack.env, "program", "create", "--name", "After Crash");
    assert.equal(r.code, 0, r.output);
    assert.equal(existsSync(lockFile), false, "the CLI released the lock it took over");
  });
});
