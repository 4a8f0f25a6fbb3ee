/**
 * The SQL tagged template (lib/db/sql.ts): values are bound as `$n` in order, fragments nest with their values
 * renumbered, and no value is ever written into the text.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { preparedName } from "@/lib/db/adapter";
import { CUSTOM_PLAN_MARK, customPlan, empty, int, join, params, raw, sql, Sql } from "@/lib/db/sql";

describe("sql", () => {
  test("binds each value as $n in order", () => {
    const q = sql`SELECT * FROM "Customer" WHERE id = ${"a"}::uuid AND email = ${"b"} LIMIT ${26}`;
    assert.equal(q.text, `SELECT * FROM "Customer" WHERE id = $1::uuid AND email = $2 LIMIT $3`);
    assert.deepEqual(q.values, ["a", "b", 26]);
  });

  test("a nested fragment is spliced with its values renumbered after the ones before it", () => {
    const tier = sql`ct."currentTierId" = ${"t"}::uuid`;
    const cursor = sql`c.email ~>~ ${"x@example.com"}`;
    const q = sql`SELECT 1 WHERE c."programId" = ${"p"}::uuid AND ${tier} AND ${cursor} LIMIT ${51}`;
    assert.equal(
      q.text,
      `SELECT 1 WHERE c."programId" = $1::uuid AND ct."currentTierId" = $2::uuid AND c.email ~>~ $3 LIMIT $4`,
    );
    assert.deepEqual(q.values, ["p", "t", "x@example.com", 51]);
  });

  test("fragments nest at any depth, and the same fragment used twice binds its values twice", () => {
    const inner = sql`x = ${1}`;
    const middle = sql`(${inner} OR ${inner})`;
    const q = sql`SELECT ${"a"} WHERE ${middle} AND y = ${2}`;
    assert.equal(q.text, `SELECT $1 WHERE (x = $2 OR x = $3) AND y = $4`);
    assert.deepEqual(q.values, ["a", 1, 1, 2]);
  });

  test("a fragment at the start or end of a statement", () => {
    const q = sql`${sql`a = ${1}`} AND ${sql`b = ${2}`}`;
    assert.equal(q.text, `a = $1 AND b = $2`);
    assert.deepEqual(q.values, [1, 2]);
  });

  test("join puts the separator between fragments and renumbers their values", () => {
    const q = sql`WHERE ${join([sql`a = ${1}`, raw("b IS NULL"), sql`c = ${3} OR d = ${4}`], " AND ")} LIMIT ${5}`;
    assert.equal(q.text, `WHERE a = $1 AND b IS NULL AND c = $2 OR d = $3 LIMIT $4`);
    assert.deepEqual(q.values, [1, 3, 4, 5]);
  });

  test("join of nothing is empty, of one is that one", () => {
    assert.equal(join([]).text, "");
    assert.deepEqual(join([]).values, []);
    assert.equal(sql`SELECT 1${join([])}`.text, "SELECT 1");
    assert.equal(join([sql`a = ${1}`], " AND ").text, "a = $1");
    assert.equal(empty.text, "");
  });

  test("raw writes constant text as is and binds nothing", () => {
    const q = sql`SELECT ${raw('c."createdAt"')} FROM "Customer" c WHERE c.id = ${"id"}`;
    assert.equal(q.text, `SELECT c."createdAt" FROM "Customer" c WHERE c.id = $1`);
    assert.deepEqual(q.values, ["id"]);
  });

  test("no value ever reaches the text, whatever it holds", () => {
    const hostile = ['\'; DROP TABLE "Customer"; --', "$1", "${x}", 42, 9007199254740991n, null, true, ["a", "b"]];
    const q = sql`SELECT ${join(hostile.map((v) => sql`${v}`))} WHERE a = ${sql`${hostile[0]}`}`;
    assert.equal(q.text, `SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE a = $9`);
    assert.deepEqual(q.values, [...hostile, hostile[0]]);
    for (const v of hostile) if (typeof v === "string") assert.ok(!q.text.includes(v) || v === "$1");
  });

  test("an undefined value is refused (a forgotten argument, not NULL)", () => {
    assert.throws(() => sql`SELECT ${undefined}`, TypeError);
  });

  test("the same structure gives the same text whatever the values (one prepared statement)", () => {
    const page = (after: string | null, limit: number) =>
      sql`SELECT 1 WHERE true${after === null ? empty : sql` AND c.email ~>~ ${after}`} LIMIT ${limit}`;
    assert.equal(page("a", 10).text, page("zzz", 99).text);
    assert.notEqual(page(null, 10).text, page("a", 10).text);
    assert.ok(page("a", 10) instanceof Sql);
  });

  test("params: a statement built once writes its named placeholders as $n from `first`, and binds on each run", () => {
    const p = params(["programId", "points"] as const, 6);
    const fragment = sql`balance + ${p.sql.points}::int`;
    const q = sql`UPDATE x SET balance = ${fragment} WHERE "programId" = ${p.sql.programId}::uuid AND ${p.sql.points} > 0`;
    assert.equal(q.text, `UPDATE x SET balance = balance + $7::int WHERE "programId" = $6::uuid AND $7 > 0`);
    assert.deepEqual(q.values, [], "nothing bound at build time");
    assert.ok(q.parameterised && fragment.parameterised);
    assert.deepEqual(p.values({ points: 5, programId: "p" }), ["p", 5], "the arguments in the order of the names");
  });

  test("params and bound values never share a statement (their $n would collide)", () => {
    const p = params(["a"] as const);
    assert.throws(() => sql`SELECT ${p.sql.a} WHERE b = ${2}`, TypeError);
    assert.throws(() => sql`SELECT ${sql`${p.sql.a}`}, ${sql`${2}`}`, TypeError);
  });

  test("a param in a plain template string (not the tag) throws instead of writing text", () => {
    const p = params(["a"] as const);
    assert.throws(() => `SELECT ${p.sql.a}`, /param a outside the sql tag/);
  });

  test("int writes a constant integer of the code into the text, and refuses anything else", () => {
    assert.equal(sql`LIMIT ${int(86400)}`.text, "LIMIT 86400");
    assert.throws(() => int(1.5), TypeError);
    assert.throws(() => int(Number.NaN), TypeError);
  });

  test("customPlan marks the statement (its values unchanged), and the adapter sends a marked one unnamed", () => {
    const q = customPlan(sql`SELECT 1 WHERE email LIKE ${"%a%"} LIMIT ${8}`);
    assert.equal(q.text, `${CUSTOM_PLAN_MARK} SELECT 1 WHERE email LIKE $1 LIMIT $2`);
    assert.deepEqual(q.values, ["%a%", 8]);
    assert.equal(preparedName({ sql: q.text }), "", "the empty name is the protocol's unnamed statement");
    assert.match(preparedName({ sql: "SELECT 1 WHERE email LIKE $1 LIMIT $2" }), /^q_[0-9a-f]{20}$/);
  });
});
