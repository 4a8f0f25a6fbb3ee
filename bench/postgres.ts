/**
 * The benchmark's database: a fresh database on BENCH_DATABASE_URL's server when that is set, else a throwaway
 * PostgreSQL 15 server in a temp directory, listening on 127.0.0.1 only, stopped and deleted at the end.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import pg from "pg";
import { log, register } from "./lifecycle";

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const isRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary as the `postgres` user when we are root (initdb refuses root), else as ourselves. */
function asOwner(args: string[], timeoutMs = 120_000) {
  const r = isRoot
    ? spawnSync("su", ["postgres", "-s", "/bin/sh", "-c", args.map(quote).join(" ")], {
        encoding: "utf8",
        timeout: timeoutMs,
      })
    : spawnSync(args[0]!, args.slice(1), { encoding: "utf8", timeout: timeoutMs });
  return { ok: r.status === 0, text: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

export interface BenchDatabase {
  url: string;
  describe: string;
}

async function throwawayServer(): Promise<BenchDatabase> {
  if (!existsSync(path.join(PG_BIN, "initdb")))
    throw new Error(`${PG_BIN}/initdb not found: install postgresql-15 or set BENCH_DATABASE_URL`);
  const dir = mkdtempSync("/tmp/loyalty-bench-pg-");
  const data = path.join(dir, "data");
  chmodSync(dir, 0o755);
  if (isRoot) spawnSync("chown", ["postgres:", dir]);
  let started = false;
  const remove = () => rmSync(dir, { recursive: true, force: true });
  register(
    "PostgreSQL",
    () => {
      if (started) {
        const r = asOwner([`${PG_BIN}/pg_ctl`, "-D", data, "stop", "-m", "fast", "-w", "-t", "30"], 40_000);
        if (!r.ok) {
          log(`pg_ctl stop failed (${r.text.trim()}); killing the postmaster`);
          killPostmaster(data);
        }
      }
      remove();
    },
    () => {
      if (started && !asOwner([`${PG_BIN}/pg_ctl`, "-D", data, "stop", "-m", "immediate", "-w", "-t", "10"], 15_000).ok)
        killPostmaster(data);
      remove();
    },
  );

  const init = asOwner([
    `${PG_BIN}/initdb`,
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "postgres",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-instructions",
  ]);
  if (!init.ok) throw new Error(`initdb failed:\n${init.text}`);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c max_connections=200",
    "-c shared_buffers=256MB",
    "-c logging_collector=off",
    // Extra server settings, e.g. `-c shared_preload_libraries=pg_stat_statements` (bench/profile.ts sets it).
    ...(process.env.BENCH_PG_OPTIONS?.trim() ? [process.env.BENCH_PG_OPTIONS.trim()] : []),
  ].join(" ");
  started = true;
  const start = asOwner([
    `${PG_BIN}/pg_ctl`,
    "-D",
    data,
    "-l",
    path.join(dir, "log"),
    "-o",
    options,
    "-w",
    "-t",
    "60",
    "start",
  ]);
  if (!start.ok) {
    const serverLog = existsSync(path.join(dir, "log")) ? readFileSync(path.join(dir, "log"), "utf8").slice(-3000) : "";
    throw new Error(`pg_ctl start failed:\n${start.text}\n${serverLog}`);
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    describe: `throwaway PostgreSQL 15 on 127.0.0.1:${port} (${dir})`,
  };
}

function killPostmaster(data: string) {
  try {
    const pid = Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    if (pid > 0) process.kill(pid, "SIGQUIT");
  } catch {
    // not running
  }
}

/** On an existing server: a database of our own when we may create one, else the given database itself. */
async function onExistingServer(url: string): Promise<BenchDatabase> {
  const name = `bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (err) {
    log(`cannot create a database (${(err as Error).message}); using BENCH_DATABASE_URL's database as is`);
    return { url, describe: "BENCH_DATABASE_URL (its own database)" };
  } finally {
    await admin.end();
  }
  const drop = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  };
  register("bench database", drop, () => {
    /* cannot drop synchronously; the database is named bench_* and safe to drop by hand */
  });
  const own = new URL(url);
  own.pathname = `/${name}`;
  return { url: own.toString(), describe: `database ${name} on BENCH_DATABASE_URL's server (dropped at the end)` };
}

export async function benchDatabase(): Promise<BenchDatabase> {
  const given = process.env.BENCH_DATABASE_URL?.trim();
  const db = given ? await onExistingServer(given) : await throwawayServer();
  const host = new URL(db.url).hostname;
  if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(host))
    log(`warning: the database is on ${host}, not on this machine`);
  return db;
}
