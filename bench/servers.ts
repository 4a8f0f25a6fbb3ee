/**
 * The servers the bench measures: "ours" (the production server, whatever `npm start` runs), plain `next start`
 * beside it, and the bare node:http + pg baseline (bench/baseline-server.ts); plus the CLI and the process tree's RSS.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./config";
import { log, spawnChild, type Child } from "./lifecycle";
import { freePort } from "./postgres";

/** Runs a command to completion (killed on abort) and returns its output; throws on a non-zero exit. */
export async function runCommand(
  name: string,
  command: string,
  args: string[],
  childEnv: NodeJS.ProcessEnv,
  timeoutMs = 300_000,
): Promise<string> {
  const child = spawnChild(name, command, args, { cwd: ROOT, env: childEnv });
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => void child.stop(), timeoutMs);
    child.proc.once("exit", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  if (code !== 0) throw new Error(`${name} failed (exit ${code}):\n${child.output().slice(-4000)}`);
  return child.output();
}

/** `npm run --silent loyalty -- …`: the CLI prints its result as JSON on its last stdout line. */
export async function cli(dbEnv: NodeJS.ProcessEnv, ...args: string[]): Promise<Record<string, string>> {
  const out = await runCommand(
    `loyalty ${args.slice(0, 2).join(" ")}`,
    "npm",
    ["run", "--silent", "loyalty", "--", ...args],
    dbEnv,
    120_000,
  );
  const last =
    out
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .at(-1) ?? "";
  const json = JSON.parse(last);
  if (json.error) throw new Error(`CLI ${args.join(" ")}: ${JSON.stringify(json.error)}`);
  return json;
}

async function waitFor(name: string, child: Child, url: string, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`${name} exited early:\n${child.output().slice(-4000)}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${name} did not answer within ${timeoutMs / 1000} s:\n${child.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface Server {
  name: string;
  baseUrl: string;
  child: Child;
}

/**
 * The production server's command: `npm start` without its migration step (the bench has migrated already), so
 * that the bench measures whatever `npm start` serves. BENCH_OURS_COMMAND overrides it (a shell command that
 * listens on $PORT).
 */
export function productionCommand(): string {
  const given = process.env.BENCH_OURS_COMMAND?.trim();
  if (given) return given;
  const start: string | undefined = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts?.start;
  if (!start) throw new Error("package.json has no start script");
  return start.replace(/^\s*npm run (--silent )?db:migrate\s*&&\s*/, "").trim();
}

/** Whether the production server is plain `next start` (then the `next start` column is ours). */
export const oursIsNextStart = () => /^next start(\s|$)/.test(productionCommand());

/**
 * The environment variable(s) that set the number of workers of the production server. BENCH_WORKERS_VAR names
 * one; by default both names in use are set (the one the server does not read is ignored).
 */
export const workersVars = (): string[] =>
  process.env.BENCH_WORKERS_VAR?.trim()
    ? [process.env.BENCH_WORKERS_VAR.trim()]
    : ["LOYALTY_WORKERS", "WEB_CONCURRENCY"];

/** Makes sure a production build exists (`next build` when .next/BUILD_ID is missing). */
export async function ensureBuild(dbEnv: NodeJS.ProcessEnv) {
  if (existsSync(path.join(ROOT, ".next", "BUILD_ID"))) return;
  log("no production build (.next/BUILD_ID): running `npm run build`");
  await runCommand("build", "npm", ["run", "build"], dbEnv, 900_000);
}

/**
 * Starts ours: the production server's command (productionCommand) with `workers` workers (set through the
 * variable(s) of workersVars, or `workersVar` when given), on a free port (PORT), under the Node binary `node`
 * (its directory goes first on PATH, so `next`, `tsx` and `node` in the command all run on it).
 */
export async function startOurs(options: {
  /** undefined: the server's default (no worker variable set, and any inherited one removed). */
  workers?: number;
  env: NodeJS.ProcessEnv;
  workersVar?: string;
  node?: string;
  label?: string;
}): Promise<Server> {
  const port = await freePort();
  const command = productionCommand();
  const node = options.node ?? process.execPath;
  const vars = options.workersVar ? [options.workersVar] : workersVars();
  const env: NodeJS.ProcessEnv = { ...options.env };
  for (const v of vars) {
    if (options.workers === undefined) delete env[v];
    else env[v] = String(options.workers);
  }
  const workers = options.workers === undefined ? "default workers" : `${options.workers} worker(s)`;
  const name = options.label ?? `ours (${command}, ${workers})`;
  const child = spawnChild(name, "sh", ["-c", command], {
    cwd: ROOT,
    env: {
      ...env,
      PORT: String(port),
      // Standalone servers read it; `next start` listens on every interface regardless.
      HOSTNAME: "127.0.0.1",
      PATH: [path.dirname(node), path.join(ROOT, "node_modules/.bin"), options.env.PATH ?? process.env.PATH].join(":"),
    },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(name, child, `${baseUrl}/v1/openapi.json`);
  return { name, baseUrl, child };
}

/** Plain `next start` of the same build: the reference the production server replaces. */
export async function startNextStart(env: NodeJS.ProcessEnv): Promise<Server> {
  const port = await freePort();
  const child = spawnChild(
    "next start",
    path.join(ROOT, "node_modules/.bin/next"),
    ["start", "-p", String(port), "-H", "127.0.0.1"],
    { cwd: ROOT, env },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor("next start", child, `${baseUrl}/v1/openapi.json`);
  return { name: "next start", baseUrl, child };
}

/** The bare node:http + pg server with the same SQL (bench/baseline-server.ts), one process. */
export async function startBaseline(
  env: NodeJS.ProcessEnv,
  node = process.execPath,
  name = "bare node:http + pg",
): Promise<Server> {
  const port = await freePort();
  const child = spawnChild("baseline", node, ["--no-warnings", "--import", "tsx", "bench/baseline-server.ts"], {
    cwd: ROOT,
    env: { ...env, PORT: String(port) },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor("baseline", child, `${baseUrl}/`);
  return { name, baseUrl, child };
}

/** The processes of a server: its process group (spawnChild starts each in its own), shells and npm left out. */
function serverProcesses(child: Child): { pid: number; rssKb: number; name: string }[] {
  const group = child.proc.pid;
  if (group === undefined) return [];
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so split after its last ')'.
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (pgrp !== group || /^(sh|dash|bash|npm)\b/.test(name)) continue;
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      if (rssKb > 0) found.push({ pid: Number(entry), rssKb, name });
    } catch {
      // the process ended while we read
    }
  }
  return found;
}

/** RSS of the server's whole process tree in MiB (for a cluster: the primary and every worker) and its size. */
export function serverRss(server: Server): { mib: number; processes: number } {
  const procs = serverProcesses(server.child);
  return { mib: Math.round(procs.reduce((n, p) => n + p.rssKb, 0) / 102.4) / 10, processes: procs.length };
}

/** CPU seconds (user + system) the server's process tree has used so far (the kernel's clock ticks, 100 per second). */
export function serverCpuSeconds(server: Server): number {
  return serverProcesses(server.child).reduce((total, { pid }) => total + processCpuSeconds(pid), 0);
}

/** A process's CPU time so far (user + system) in seconds; 0 when it has ended. */
export function processCpuSeconds(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the comm: state is field 3, utime field 14 and stime field 15 (1-based over the whole line).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0; // the process ended while we read
  }
}
