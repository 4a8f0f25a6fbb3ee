/**
 * Every business time of the domain and the jobs comes from a program's clock (lib/domain/clock.ts), and every
 * security or operations time from real time (lib/domain/real-time.ts): only those two modules read the time. A
 * direct read anywhere else under lib/domain or lib/jobs (JavaScript's or the database's) fails here, so a rule
 * cannot silently escape a program's test clock.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCANNED = ["lib/domain", "lib/jobs"];
const TIME_MODULES = new Set(["lib/domain/clock.ts", "lib/domain/real-time.ts"]);

/** Direct reads of the current time: JavaScript's, then PostgreSQL's (case-insensitive, as SQL is). */
const DIRECT_READS: [string, RegExp][] = [
  ["Date.now()", /\bDate\.now\s*\(/],
  ["new Date() without an argument", /\bnew\s+Date\s*\(\s*\)/],
  ["SQL now()", /(?<![.\w$])now\s*\(\s*\)/i],
  ["CURRENT_TIMESTAMP", /\bcurrent_timestamp\b/i],
  ["CURRENT_DATE", /\bcurrent_date\b/i],
  ["CURRENT_TIME", /\bcurrent_time\b/i],
  ["LOCALTIMESTAMP / LOCALTIME", /\blocaltime(stamp)?\b/i],
  ["clock_timestamp()", /\bclock_timestamp\s*\(/i],
  ["statement_timestamp()", /\bstatement_timestamp\s*\(/i],
  ["transaction_timestamp()", /\btransaction_timestamp\s*\(/i],
  ["timeofday()", /\btimeofday\s*\(/i],
];

const sourceFiles = (dir: string): string[] =>
  readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return /\.(ts|tsx|mts|js|mjs)$/.test(entry.name) ? [relative] : [];
  });

/** The direct time reads of a source text, as `line: what`. */
function directReads(source: string): string[] {
  return source
    .split("\n")
    .flatMap((line, i) =>
      DIRECT_READS.filter(([, pattern]) => pattern.test(line)).map(([what]) => `${i + 1}: ${what}`),
    );
}

test("the patterns catch each kind of direct read, and not the clock's own calls", () => {
  assert.deepEqual(directReads("const t = Date.now();"), ["1: Date.now()"]);
  assert.deepEqual(directReads("const t = new Date();"), ["1: new Date() without an argument"]);
  assert.deepEqual(directReads('`UPDATE "X" SET "updatedAt" = NOW()`'), ["1: SQL now()"]);
  assert.deepEqual(directReads("WHERE at < current_timestamp"), ["1: CURRENT_TIMESTAMP"]);
  assert.deepEqual(directReads("SELECT clock_timestamp()"), ["1: clock_timestamp()"]);
  assert.deepEqual(directReads("const at = programNow(programId);"), []);
  assert.deepEqual(directReads("const d = new Date(row.createdAt);"), []);
  assert.deepEqual(directReads("const started = performance.now();"), []);
});

test("lib/domain and lib/jobs read the time only through the clock or real time", () => {
  const files = SCANNED.flatMap(sourceFiles).filter((f) => !TIME_MODULES.has(f));
  assert.ok(files.length > 30, `expected the domain's files, found ${files.length}`);
  const found = files.flatMap((file) =>
    directReads(readFileSync(path.join(ROOT, file), "utf8")).map((read) => `${file}:${read}`),
  );
  assert.deepEqual(
    found,
    [],
    "business times come from programNow (lib/domain/clock.ts); security and operations times from realTime " +
      "(lib/domain/real-time.ts); SQL takes the time as a bound parameter ($n::timestamptz)",
  );
});
