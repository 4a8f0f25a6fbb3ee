/**
 * The one place where the tests run the project's own scripts as child processes: `db:migrate` and the admin CLI
 * (`npm run loyalty`), with the environment every child of the tests gets.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import path from "node:path";

/** The repository root: every child process runs there. */
export const ROOT = path.resolve(import.meta.dirname, "../..");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The last stdout line as JSON (null when it is not JSON). */
  json: Record<string, unknown> | null;
  ms: number;
}

const NODE_FLAGS = ["--no-warnings", "--import", "tsx"];

/** The environment of our child processes: the parent's, minus what would confuse them. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // The webhook receivers of the tests listen on http://127.0.0.1: allowed only with this development setting.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: "1",
    LOYALTY_ALLOW_HTTP_WEBHOOKS: "1",
    ...extra,
  };
  delete env.NODE_TEST_CONTEXT; // set by node:test in test files; not for the app or the CLI
  delete env.NODE_OPTIONS;
  return env;
}

function runNode(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 180_000): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      let json: Record<string, unknown> | null = null;
      try {
        json = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
      } catch {
        json = null;
      }
      resolve({ code, stdout, stderr, json, ms: Date.now() - started });
    });
  });
}

/** `npm run loyalty -- <args>` without npm in between (the same command line); resolves whatever the exit code. */
export const cliRun = (env: NodeJS.ProcessEnv, args: string[]) =>
  runNode([...NODE_FLAGS, "scripts/cli.ts", ...args], env);

/** `npm run db:migrate`. */
export async function migrate(env: NodeJS.ProcessEnv) {
  const r = await runNode(["--experimental-wasm-modules", ...NODE_FLAGS, "scripts/db.ts", "migrate"], env);
  if (r.code !== 0) throw new Error(`db:migrate failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
}

/** The admin CLI's JSON result; throws when it fails. */
export async function loyaltyWith(env: NodeJS.ProcessEnv, args: string[]): Promise<Record<string, unknown>> {
  const r = await cliRun(env, args);
  if (r.code !== 0 || !r.json || "error" in r.json) {
    throw new Error(`loyalty ${args.join(" ")} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.json;
}

/** A string field of a CLI result, or a clear error. */
export const cliString = (v: unknown, what: string): string => {
  if (typeof v !== "string" || !v) throw new Error(`CLI output has no ${what}`);
  return v;
};

/** A running `loyalty --stdin`: many commands in one process (the fixtures' templates are made with one). */
export interface CliSession {
  /** The command's JSON result; throws when it fails. One command at a time, in call order. */
  loyalty(args: string[]): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export function cliSession(env: NodeJS.ProcessEnv): CliSession {
  const child = spawn(process.execPath, [...NODE_FLAGS, "scripts/cli.ts", "--stdin"], {
    cwd: ROOT,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const waiting: ((line: string | null) => void)[] = [];
  const lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => waiting.shift()?.(line));
  const exited = new Promise<number | null>((resolve) =>
    child.once("close", (code) => {
      for (const w of waiting.splice(0)) w(null);
      resolve(code);
    }),
  );
  let queue: Promise<unknown> = Promise.resolve();
  return {
    loyalty(args) {
      const run = queue.then(async () => {
        const line = await new Promise<string | null>((resolve) => {
          waiting.push(resolve);
          child.stdin.write(`${JSON.stringify(args)}\n`);
        });
        const json = line === null ? null : (JSON.parse(line) as Record<string, unknown>);
        if (!json || "error" in json) {
          throw new Error(`loyalty ${args.join(" ")} failed:\n${line ?? "(the CLI exited)"}\n${stderr}`);
        }
        return json;
      });
      queue = run.catch(() => {});
      return run;
    },
    async close() {
      await queue;
      child.stdin.end();
      await exited;
    },
  };
}
