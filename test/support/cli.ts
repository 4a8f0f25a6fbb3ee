/**
 * The one place where the tests run the project's own scripts as child processes: `db:migrate` and the admin CLI
 * (`npm run loyalty`), with the environment every child of the tests gets.
 */
import { spawn } from "node:child_process";
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
