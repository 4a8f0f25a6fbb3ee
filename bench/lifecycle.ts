/**
 * Everything the benchmark starts is registered here and torn down at the end, in reverse order: on success,
 * on an error, on SIGINT/SIGTERM/SIGHUP, and when the overall deadline passes. Each resource has an orderly
 * `stop` (awaited) and an `emergency` (synchronous, for process 'exit') so nothing outlives the run.
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

interface Resource {
  name: string;
  stop: () => Promise<void> | void;
  emergency: () => void;
  done: boolean;
}

const resources: Resource[] = [];
let tearingDown: Promise<void> | null = null;

export const log = (...args: unknown[]) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);

export function register(name: string, stop: () => Promise<void> | void, emergency: () => void): () => Promise<void> {
  const r: Resource = { name, stop, emergency, done: false };
  resources.push(r);
  return async () => {
    if (r.done) return;
    r.done = true;
    await r.stop();
  };
}

/** Stops every resource still running, newest first. Safe to call more than once. */
export function teardown(): Promise<void> {
  tearingDown ??= (async () => {
    for (const r of [...resources].reverse()) {
      if (r.done) continue;
      r.done = true;
      try {
        await Promise.race([Promise.resolve(r.stop()), new Promise((res) => setTimeout(res, 20_000))]);
      } catch (err) {
        log(`stopping ${r.name} failed: ${(err as Error).message}; forcing`);
        try {
          r.emergency();
        } catch {
          // nothing more to do
        }
      }
    }
  })();
  return tearingDown;
}

let installed = false;
/** Signal handlers, a last-resort 'exit' hook, and a deadline after which the run aborts itself. */
export function installGuards(deadlineSeconds: number) {
  if (installed) return;
  installed = true;
  process.on("exit", () => {
    for (const r of [...resources].reverse()) {
      if (r.done) continue;
      r.done = true;
      try {
        r.emergency();
      } catch {
        // best effort
      }
    }
  });
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals, code: number) => {
    // A second signal does not wait for the orderly stop: exit now, and the 'exit' hook kills what is left.
    if (signalled) process.exit(code);
    signalled = true;
    log(`${signal}: stopping everything (again to force)`);
    void teardown().finally(() => {
      log("stopped everything it started");
      process.exit(code);
    });
  };
  process.on("SIGINT", () => onSignal("SIGINT", 130));
  process.on("SIGTERM", () => onSignal("SIGTERM", 143));
  process.on("SIGHUP", () => onSignal("SIGHUP", 129));
  const timer = setTimeout(() => {
    log(`deadline of ${deadlineSeconds} s reached: aborting`);
    void teardown().finally(() => process.exit(124));
  }, deadlineSeconds * 1000);
  timer.unref();
}

/** A child in its own process group, so stopping it also stops whatever it spawned. */
export interface Child {
  proc: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function spawnChild(
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions & { keepOutput?: number } = {},
): Child {
  const proc = spawn(command, args, { ...options, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const keep = options.keepOutput ?? 64_000;
  let output = "";
  const append = (d: Buffer) => {
    output += d.toString();
    if (output.length > keep * 2) output = output.slice(-keep);
  };
  proc.stdout!.on("data", append);
  proc.stderr!.on("data", append);
  const kill = (signal: NodeJS.Signals) => {
    if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) return;
    try {
      process.kill(-proc.pid, signal);
    } catch {
      // already gone
    }
  };
  const stop = register(
    name,
    async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once("exit", r));
      kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      kill("SIGKILL");
    },
    () => kill("SIGKILL"),
  );
  return { proc, output: () => output, stop };
}
