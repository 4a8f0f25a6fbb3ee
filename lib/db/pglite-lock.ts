import "server-only";
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The one place that keeps a PGlite data directory to one process. PGlite is PostgreSQL in-process with no
 * server in front: a second process that opens the same directory writes beside the first, its writes are
 * never seen, and the directory is left unreadable (`Aborted()`). So whoever opens a directory first leaves
 * `loyalty.lock` in it (created atomically with O_EXCL, holding its pid and start time), and every other
 * opener fails at once, naming the holder and the two ways forward. The lock is removed on close and on
 * process exit; a lock whose process is gone (killed, crashed, machine rebooted) is taken over.
 */

export const LOCK_FILE = "loyalty.lock";

interface LockContent {
  pid: number;
  hostname: string;
  /** Linux: the kernel's boot id and the process's start time in clock ticks since boot, to tell a reused pid. */
  bootId: string | null;
  procStart: string | null;
  startedAt: string;
  command: string;
}

/** Another live process holds the directory. The message is for the operator who ran the second command. */
export class DatabaseLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockContent,
  ) {
    const where =
      holder.hostname === os.hostname() ? `process ${holder.pid}` : `process ${holder.pid} on host ${holder.hostname}`;
    super(
      `The embedded database in ${dir} is in use by ${where} (${holder.command}, since ${holder.startedAt}). ` +
        `Only one process at a time may open it. Either stop that process (the server: Ctrl-C or kill ${holder.pid}) and run this again, ` +
        `or run the server and this command against PostgreSQL by setting DATABASE_URL. ` +
        `If no such process exists, delete ${path.join(dir, LOCK_FILE)}.`,
    );
    this.name = "DatabaseLockedError";
  }
}

function readOptional(file: string): string | null {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return null;
  }
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name, which may contain spaces). */
function procStartOf(pid: number | "self"): string | null {
  const stat = readOptional(`/proc/${pid}/stat`);
  if (!stat) return null;
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
}

function ownContent(): LockContent {
  return {
    pid: process.pid,
    hostname: os.hostname(),
    bootId: readOptional("/proc/sys/kernel/random/boot_id"),
    procStart: procStartOf("self"),
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    command: process.argv
      .slice(1)
      .map((a) => path.basename(a))
      .join(" ")
      .slice(0, 200),
  };
}

// Locks this process holds, on globalThis so every module copy (Next bundles, the CLI) sees the same set.
const held = ((globalThis as { __loyaltyPgliteLocks?: Set<string> }).__loyaltyPgliteLocks ??= new Set<string>());

/** Whether the process that wrote `lock` still runs. When it cannot be known (another host), it is assumed to. */
function holderAlive(lock: LockContent, file: string): boolean {
  if (lock.hostname !== os.hostname()) return true;
  const bootId = readOptional("/proc/sys/kernel/random/boot_id");
  if (lock.bootId && bootId && lock.bootId !== bootId) return false; // rebooted since
  // Our own pid in a lock we did not take: a previous incarnation with the same pid (containers start at pid 1).
  if (lock.pid === process.pid) return held.has(file);
  try {
    process.kill(lock.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  const start = procStartOf(lock.pid);
  return !(lock.procStart && start && lock.procStart !== start); // a different process reusing the pid
}

function parse(text: string | null): LockContent | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as LockContent;
    return typeof v.pid === "number" ? v : null;
  } catch {
    return null;
  }
}

function createExclusive(file: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, "wx", 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

export interface PgliteLock {
  release(): void;
}

/** Takes the directory's lock or throws DatabaseLockedError. The directory must exist. */
export function lockPgliteDir(dir: string): PgliteLock {
  const file = path.resolve(dir, LOCK_FILE);
  const mine = JSON.stringify(ownContent());
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(file, mine)) {
      held.add(file);
      return lockHandle(file, mine);
    }
    const text = readOptional(file);
    const lock = parse(text);
    // A lock still being written (empty for a moment) or unreadable is treated as held: never guess it away.
    if (!lock) {
      if (text === null) continue; // removed meanwhile: try again
      throw new DatabaseLockedError(dir, {
        pid: 0,
        hostname: "?",
        bootId: null,
        procStart: null,
        startedAt: "?",
        command: `an unreadable ${LOCK_FILE}`,
      });
    }
    if (holderAlive(lock, file)) throw new DatabaseLockedError(dir, lock);
    // Stale: move it aside under a name of our own, then check that what we moved is what we judged dead. If a
    // concurrent opener replaced it with a live lock in between, put that back and report it.
    const aside = `${file}.stale-${process.pid}-${Date.now()}`;
    try {
      renameSync(file, aside);
    } catch {
      continue;
    }
    const moved = readOptional(aside);
    if (moved !== text) {
      try {
        linkSync(aside, file);
      } catch {
        // a third opener has created a lock already; it wins
      }
      unlinkQuietly(aside);
      const live = parse(moved);
      if (live) throw new DatabaseLockedError(dir, live);
      continue;
    }
    unlinkQuietly(aside);
  }
  const last = parse(readOptional(file));
  if (last) throw new DatabaseLockedError(dir, last);
  throw new Error(`Could not lock the embedded database in ${dir}.`);
}

function unlinkQuietly(file: string) {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

function lockHandle(file: string, mine: string): PgliteLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off("exit", release);
    held.delete(file);
    // Only our own lock: never remove one another process took over after ours was judged stale.
    if (readOptional(file) === mine) unlinkQuietly(file);
  };
  // Also when the process ends without closing the database (process.exit, an uncaught error). A kill by a
  // signal skips this; the next opener then finds the pid dead and takes over.
  process.on("exit", release);
  return { release };
}
