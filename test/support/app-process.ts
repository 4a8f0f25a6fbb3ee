/**
 * The one place that runs the built app for the tests: the production server (`node dist/main.mjs`, what `npm start`
 * runs: server/main.ts, one worker unless the test sets LOYALTY_WORKERS) or, on request, plain `next start` (the
 * parity test compares the two), on a free port in its own process group, ready once /v1/openapi.json answers,
 * stopped as a whole group (a PGlite directory and a port are free only then).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { apiClient, type Api } from "./api-client";
import { ROOT } from "./cli";

/** Which server runs the build: the production front (default) or `next start`. */
export type ServerKind = "front" | "next";

export interface AppInstance {
  baseUrl: string;
  /** The process leading the instance's group (the cluster's primary under the front). */
  pid: number;
  /** Settles with the exit code (null when ended by a signal) once the leading process has exited. */
  exited: Promise<number | null>;
  /** A client sending the fixtures' `key` by default. */
  api: Api;
  logs(): string;
  stop(): Promise<void>;
}

/** Polls `check` every 100 ms until it holds, or fails after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function requireBuild(): void {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID")) || !existsSync(path.join(ROOT, "dist", "main.mjs"))) {
    throw new Error(
      "No production build of the app (.next/BUILD_ID or dist/main.mjs is missing): run `npm run build` before the integration tests. " +
        "`npm test` builds before it runs them.",
    );
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Whether any process of the group led by `pid` is still running. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

class EarlyExit extends Error {}

async function startOnce(
  env: NodeJS.ProcessEnv,
  defaultKey: string | undefined,
  running: Set<AppInstance>,
  server: ServerKind,
): Promise<AppInstance> {
  const port = await freePort();
  let output = "";
  const [command, args] =
    server === "next"
      ? [path.join(ROOT, "node_modules/.bin/next"), ["start", "-p", String(port), "-H", "127.0.0.1"]]
      : [process.execPath, [path.join(ROOT, "dist", "main.mjs")]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { LOYALTY_WORKERS: "1", ...env, PORT: String(port), HOST: "127.0.0.1" },
    detached: true, // its own process group, stopped as a whole
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  let stopped = false;
  const instance: AppInstance = {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    exited,
    api: apiClient(`http://127.0.0.1:${port}`, defaultKey),
    logs: () => output,
    async stop() {
      if (stopped) return;
      stopped = true;
      running.delete(instance);
      if (process.env.TEST_SHOW_LOGS === "1") console.error(output);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const kill = (signal: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, signal);
        } catch {
          // already gone
        }
      };
      kill("SIGTERM");
      const done = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
      if (!done) {
        kill("SIGKILL");
        await exited;
      }
      for (let i = 0; i < 50 && groupAlive(child.pid!); i++) await new Promise((r) => setTimeout(r, 100));
    },
  };
  running.add(instance);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await instance.stop();
      throw new EarlyExit(`${server} exited early (code ${child.exitCode}):\n${output}`);
    }
    try {
      const res = await fetch(`${instance.baseUrl}/v1/openapi.json`);
      await res.arrayBuffer();
      if (res.ok) return instance;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await instance.stop();
      throw new Error(`${server} did not answer within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The built app with `env` (the front, or `next start`), answering; in `running` from its spawn until it is stopped. */
export async function startApp(
  env: NodeJS.ProcessEnv,
  defaultKey: string | undefined,
  running: Set<AppInstance>,
  server: ServerKind = "front",
): Promise<AppInstance> {
  // A port taken between freePort() and listen() makes the server exit at once: try again on another one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, defaultKey, running, server);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof EarlyExit)) throw err;
    }
  }
}
