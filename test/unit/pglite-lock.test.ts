/**
 * The PGlite data directory's lock (lib/db/pglite-lock.ts): one holder at a time, a clear refusal naming it, a
 * dead holder's lock taken over, and a release that never removes someone else's lock. The end-to-end threat
 * (server + CLI) is test/integration/threat-pglite-second-opener.test.ts.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseLockedError, LOCK_FILE, lockPgliteDir } from "@/lib/db/pglite-lock";

const root = mkdtempSync(path.join(os.tmpdir(), "loyalty-lock-"));
let n = 0;
const freshDir = () => mkdtempSync(path.join(root, `d${++n}-`));

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((r) => child.once("close", r));
  return child.pid!;
}

/** Linux's pid_max is at most 2^22: no process has this pid, so only the hostname can decide. */
const PID_ABOVE_PID_MAX = 2 ** 22 + 1;

const lockOf = (pid: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    pid,
    hostname: os.hostname(),
    bootId: null,
    procStart: null,
    startedAt: "2026-01-01T00:00:00.000Z",
    command: "next start",
    ...extra,
  });

describe("lockPgliteDir", () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  test("writes its pid into the directory and removes the file on release", () => {
    const dir = freshDir();
    const lock = lockPgliteDir(dir);
    const content = JSON.parse(readFileSync(path.join(dir, LOCK_FILE), "utf8"));
    assert.equal(content.pid, process.pid);
    lock.release();
    assert.equal(existsSync(path.join(dir, LOCK_FILE)), false);
    lock.release(); // idempotent
    lockPgliteDir(dir).release(); // and the directory can be locked again
  });

  test("a second opener is refused while the first holds it, with the holder's pid and both ways forward", () => {
    const dir = freshDir();
    const first = lockPgliteDir(dir);
    assert.throws(
      () => lockPgliteDir(dir),
      (err: unknown) => {
        assert.ok(err instanceof DatabaseLockedError);
        assert.equal(err.holder.pid, process.pid);
        assert.match(err.message, new RegExp(`process ${process.pid}\\b`));
        assert.match(err.message, /stop that process/);
        assert.match(err.message, /DATABASE_URL/);
        return true;
      },
    );
    first.release();
  });

  test("a live process's lock is respected (here: the test runner's parent)", () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, LOCK_FILE), lockOf(process.ppid));
    assert.throws(() => lockPgliteDir(dir), DatabaseLockedError);
  });

  test("a dead process's lock is taken over", async () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, LOCK_FILE), lockOf(await deadPid()));
    const lock = lockPgliteDir(dir);
    assert.equal(JSON.parse(readFileSync(path.join(dir, LOCK_FILE), "utf8")).pid, process.pid);
    lock.release();
  });

  test("a live pid with another start time is a reused pid: taken over", () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, LOCK_FILE), lockOf(process.ppid, { procStart: "1" }));
    if (!existsSync(`/proc/${process.ppid}/stat`)) return; // only where /proc tells start times
    lockPgliteDir(dir).release();
  });

  test("our own pid in a lock this process never took (a restarted container) is stale", () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, LOCK_FILE), lockOf(process.pid));
    lockPgliteDir(dir).release();
  });

  test("a lock of another host is never guessed away", () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, LOCK_FILE), lockOf(PID_ABOVE_PID_MAX, { hostname: "another-host" }));
    assert.throws(() => lockPgliteDir(dir), /on host another-host/);
  });

  test("release leaves a lock that is no longer ours alone", () => {
    const dir = freshDir();
    const lock = lockPgliteDir(dir);
    writeFileSync(path.join(dir, LOCK_FILE), lockOf(process.ppid));
    lock.release();
    assert.equal(JSON.parse(readFileSync(path.join(dir, LOCK_FILE), "utf8")).pid, process.ppid);
  });
});
