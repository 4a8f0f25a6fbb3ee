/**
 * `npm start` and the container's entry (built to dist/main.mjs by `npm run build`): the production server.
 *
 *   node dist/main.mjs [--migrate]
 *
 * --migrate applies pending migrations first (dist/db.mjs, the bundled `npm run db:migrate`). Then one process per
 * LOYALTY_WORKERS (default: one per core; node:cluster when more than one, the primary only supervising), each
 * serving HOST:PORT through the front (server/front.ts: /v1 dispatched to the route modules, Next for the rest).
 * With the embedded PGlite there is one process: one process at a time may open its directory.
 *
 * SIGTERM or SIGINT: stop accepting, finish the requests in flight (idle keep-alive connections are closed, busy ones
 * after their answer), let the scheduled jobs' current run end, close the database pools, exit 0. Whatever is still
 * running after SHUTDOWN_TIMEOUT_MS is cut: exit 1.
 */
import "server-only";
import { spawnSync } from "node:child_process";
import cluster, { type Worker } from "node:cluster";
import { readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { loadConfig, type Config } from "@/lib/config";
import { startMetricsAggregator } from "@/lib/ops/metrics";
import { drain, markServedByFront } from "@/lib/api/front-channels";
import { frontListener, loadV1Routes } from "./front";

/** The app's directory: this file runs as dist/main.mjs (or server/main.ts under tsx). */
const ROOT = path.resolve(import.meta.dirname, "..");

const log = (level: "info" | "warn" | "error", msg: string, fields: Record<string, unknown> = {}) =>
  (level === "info" ? console.log : console.error)(JSON.stringify({ level, msg, pid: process.pid, ...fields }));

function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(1);
}

function settings(): Config {
  try {
    return loadConfig(process.env);
  } catch (err) {
    fail((err as Error).message);
  }
}

/** How many processes serve: LOYALTY_WORKERS or one per core, and one only with PGlite. */
function workerCount(s: Config): number {
  const wanted = s.LOYALTY_WORKERS ?? os.availableParallelism();
  if (!s.DATABASE_URL && wanted > 1) {
    log("info", "embedded PGlite: one server process (one process at a time may open its directory)", { wanted });
    return 1;
  }
  return wanted;
}

function migrate(): void {
  const result = spawnSync(
    process.execPath,
    ["--experimental-wasm-modules", "--no-warnings", path.join(ROOT, "dist", "db.mjs"), "migrate"],
    { stdio: "inherit", cwd: ROOT },
  );
  if (result.status !== 0) fail(`migrations failed (exit ${result.status ?? result.signal})`);
}

/** One serving process: Next prepared, the /v1 route modules loaded, the front listening. */
async function serve(s: Config): Promise<void> {
  (process.env as Record<string, string>).NODE_ENV = "production";
  markServedByFront();
  // The configuration the build was made with, as Next's own standalone server.js passes it (no next.config.mjs
  // is needed at run time, which the standalone image does not have).
  const distDir = path.join(ROOT, ".next");
  const { config: conf } = JSON.parse(readFileSync(path.join(distDir, "required-server-files.json"), "utf8")) as {
    config: Record<string, unknown>;
  };
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(conf);
  const { default: next } = await import("next");
  const app = next({ dev: false, dir: ROOT, conf, hostname: s.HOST, port: s.PORT });
  await app.prepare();
  // In production Next prepares its server, and so runs instrumentation.ts (the PGlite lock, the scheduled jobs), at
  // the first request it handles. The front answers /v1 without Next, so an API-only instance would never start its
  // jobs: prepare it now, before listening.
  const inner = (app as unknown as { init?: { server?: { getServer(): Promise<{ prepare(): Promise<void> }> } } }).init
    ?.server;
  if (inner) await (await inner.getServer()).prepare();
  else log("warn", "could not prepare Next before listening: jobs start at its first request");
  const handle = app.getRequestHandler();
  const routes = loadV1Routes(distDir, createRequire(import.meta.url));

  let shuttingDown = false;
  const listener = frontListener({
    routes,
    next: (req, res) => handle(req, res),
  });
  const server = http.createServer((req, res) => {
    // Once shutting down, every answer closes its connection, so a keep-alive client cannot hold the process.
    if (shuttingDown) res.setHeader("connection", "close");
    listener(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(s.PORT, s.HOST, () => resolve());
  });
  log("info", "listening", { host: s.HOST, port: s.PORT, routes: routes.length, worker: cluster.isWorker });

  const shutdown = (reason: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log("info", "shutting down", { reason });
    const force = setTimeout(() => {
      log("warn", "shutdown timed out: exiting with requests or jobs still running", {
        timeoutMs: s.SHUTDOWN_TIMEOUT_MS,
      });
      process.exit(1);
    }, s.SHUTDOWN_TIMEOUT_MS);
    // close() stops accepting and calls back once every connection has ended; idle ones are closed now and any that
    // turn idle later (their answer sent) on the next sweep.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    void closed
      .then(async () => {
        clearInterval(sweep);
        await drain();
        clearTimeout(force);
        log("info", "stopped");
        process.exit(0);
      })
      .catch((err: unknown) => {
        log("error", "shutdown failed", { error: String((err as Error)?.stack ?? err) });
        process.exit(1);
      });
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  // From the primary (cluster): the same, whether or not the signal also reached this process.
  process.on("message", (message) => {
    if (message === "shutdown") shutdown("primary");
  });
}

/** The cluster's primary: forks the workers, replaces one that dies, and stops them all on SIGTERM/SIGINT. */
function supervise(s: Config, count: number): void {
  let shuttingDown = false;
  let failed = false;
  const listening = new Set<Worker>();
  const fork = () => {
    const worker = cluster.fork();
    worker.once("listening", () => listening.add(worker));
  };
  cluster.on("exit", (worker, code, signal) => {
    const started = listening.delete(worker);
    if (shuttingDown) {
      if (code !== 0) failed = true;
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        log("info", "stopped", { workers: count });
        process.exit(failed ? 1 : 0);
      }
      return;
    }
    log("error", "worker exited", { worker: worker.process.pid, code, signal });
    // A worker that never listened would fail again the same way (bad configuration, port taken): stop.
    if (!started) {
      shutdown("a worker failed to start");
      failed = true;
      return;
    }
    setTimeout(fork, 1000).unref();
  });
  const shutdown = (reason: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log("info", "shutting down", { reason, workers: count });
    for (const worker of Object.values(cluster.workers ?? {})) worker?.send("shutdown");
    // The workers bound themselves; this only guards against one that ignores its own limit.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
      process.exit(1);
    }, s.SHUTDOWN_TIMEOUT_MS + 2000).unref();
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0);
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  // Before the forks: a scrape of /metrics on any worker is answered with every worker's metrics (lib/ops/metrics.ts).
  startMetricsAggregator();
  log("info", "starting workers", { workers: count, host: s.HOST, port: s.PORT });
  for (let i = 0; i < count; i++) fork();
}

const s = settings();
if (cluster.isPrimary) {
  if (process.argv.includes("--migrate")) migrate();
  const count = workerCount(s);
  if (count > 1) supervise(s, count);
  else
    await serve(s).catch((err: unknown) => {
      fail(String((err as Error)?.stack ?? err));
    });
} else {
  await serve(s).catch((err: unknown) => {
    fail(String((err as Error)?.stack ?? err));
  });
}
