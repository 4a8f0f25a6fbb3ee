/**
 * `loyalty --stdin` (scripts/cli.ts): many commands in one process, one JSON answer line per input line, in order;
 * a failed or malformed line answers its error and the others still run; exit code 1 when any failed. The test
 * fixtures' templates are made this way (test/support/template-cache.ts).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { childEnv, ROOT } from "../support/cli";
import { pgliteDatabase } from "../support/databases";
import { MIGRATED, pgliteTemplate } from "../support/template-cache";

test("loyalty --stdin runs each line as a command on one database and answers each in order", async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "loyalty-cli-stdin-"));
  try {
    cpSync((await pgliteTemplate(MIGRATED)).dir, path.join(root, "db"), { recursive: true });
    const env = childEnv(pgliteDatabase(path.join(root, "db"), root).env);
    const run = (lines: string[]) => {
      const r = spawnSync(process.execPath, ["--no-warnings", "--import", "tsx", "scripts/cli.ts", "--stdin"], {
        cwd: ROOT,
        env,
        input: lines.join("\n") + "\n",
        encoding: "utf8",
      });
      return {
        code: r.status,
        answers: r.stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l)),
      };
    };

    const first = run([JSON.stringify(["program", "create", "--name", "Coffee Club"])]);
    assert.equal(first.code, 0);
    const programId = first.answers[0].programId as string;
    assert.match(programId, /^[0-9a-f-]{36}$/);

    const second = run([
      JSON.stringify([
        "tier",
        "create",
        "--program",
        programId,
        "--name",
        "Gold",
        "--required-points",
        "500",
        "--factor",
        "2",
      ]),
      "program show --id x",
      "",
      JSON.stringify(["tier", "create", "--program", programId, "--name", "Silver"]),
      JSON.stringify(["program", "show", "--id", programId]),
    ]);
    assert.equal(second.code, 1, "a failed line makes the exit code 1");
    assert.equal(second.answers.length, 4, "one answer per non-empty line");
    assert.match(second.answers[0].tierId, /^[0-9a-f-]{36}$/);
    assert.equal(second.answers[1].error.code, "invalid_line");
    assert.equal(second.answers[2].error.code, "invalid_flags");
    assert.equal(second.answers[3].name, "Coffee Club", "the lines after a failure still run");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
