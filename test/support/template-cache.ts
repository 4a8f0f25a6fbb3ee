/**
 * The one place for the database templates: a database migrated and filled with a spec's fixtures once, then copied
 * for each stack (migrating and running the CLI take seconds per step, most of a stack's start). PGlite: a directory
 * in the temp folder, copied as files. PostgreSQL: a database `tpl_<spec>_<key>` on the test server, copied by
 * `CREATE DATABASE … TEMPLATE`, its fixtures kept in its comment. A template is keyed on everything its fixtures
 * depend on: the migrations, lib/, the CLI, the fixture modules and the spec's parts; templates of older code stay
 * until the temp folder or the server is cleared.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { childEnv, cliSession, migrate, ROOT, type CliSession } from "./cli";
import { asAdmin, pgliteDatabase, postgresDatabase } from "./databases";
import { fixtures, toolsFor, type FixtureSpec } from "./fixture-spec";

/** Every file below `dir` (from the repo root), sorted; `skip` names folders left out. */
function filesBelow(dir: string, skip: string[] = []): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skip.includes(entry.name)) out.push(...filesBelow(rel, skip));
    } else out.push(rel);
  }
  return out;
}

let codeHash: string | null = null;

/** The migrations, lib/ (but its generated client), the CLI (its runner and command modules) and the fixtures module, hashed once per process. */
function hashOfCode(): string {
  if (!codeHash) {
    const hash = createHash("sha256");
    for (const file of [
      ...filesBelow("prisma/migrations"),
      ...filesBelow("lib", ["generated"]),
      "scripts/cli.ts",
      ...filesBelow("scripts/cli"),
      "test/support/fixture-spec.ts",
      "test/support/fixtures.ts",
    ]) {
      hash.update(file);
      hash.update(readFileSync(path.join(ROOT, file)));
    }
    codeHash = hash.digest("hex");
  }
  return codeHash;
}

const templateKey = (spec: FixtureSpec<unknown>) =>
  createHash("sha256").update(hashOfCode()).update(spec.key).digest("hex").slice(0, 12);

/** `spec`'s fixtures made by one CLI process on the database of `env`. */
async function makeFixtures<F>(spec: FixtureSpec<F>, env: NodeJS.ProcessEnv): Promise<F> {
  const cli: CliSession = cliSession(env);
  try {
    return await spec.make(toolsFor(cli));
  } finally {
    await cli.close();
  }
}

/** A migrated database and nothing else: the base every other template is copied from. */
export const MIGRATED = fixtures("migrated");
const isBase = (spec: FixtureSpec<unknown>) => spec.key === MIGRATED.key;

/** A migrated PGlite directory with `spec`'s fixtures, and the fixtures; built on first use, then reused. */
export async function pgliteTemplate<F>(spec: FixtureSpec<F>): Promise<{ dir: string; fixtures: F }> {
  const key = templateKey(spec);
  const dir = path.join(os.tmpdir(), `loyalty-${spec.name}-template-${key}`);
  const fixturesFile = path.join(dir, "fixtures.json");
  if (!existsSync(fixturesFile)) {
    // Migrating takes seconds: every template but the base starts as a copy of the migrated base.
    const base = isBase(spec) ? null : await pgliteTemplate(MIGRATED);
    const building = mkdtempSync(path.join(os.tmpdir(), `loyalty-${spec.name}-building-`));
    try {
      const db = pgliteDatabase(path.join(building, "db"));
      const env = childEnv(db.env);
      if (base) cpSync(base.dir, path.join(building, "db"), { recursive: true });
      else await migrate(env);
      writeFileSync(path.join(building, "fixtures.json"), JSON.stringify(await makeFixtures(spec, env)));
      renameSync(building, dir); // atomic: if a concurrent builder won, its equivalent copy stays
    } catch (err) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(fixturesFile)) throw err;
    }
  }
  return { dir: path.join(dir, "db"), fixtures: JSON.parse(readFileSync(fixturesFile, "utf8")) };
}

/** The fixtures kept in the comment of the PostgreSQL template `name` (base64 JSON: no quoting), or null. */
async function templateFixtures<F>(adminUrl: string, name: string): Promise<F | null> {
  const [row] = await asAdmin<{ comment: string | null }>(
    adminUrl,
    `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
    [name],
  );
  return row?.comment ? JSON.parse(Buffer.from(row.comment, "base64").toString("utf8")) : null;
}

/** The name of a migrated PostgreSQL database with `spec`'s fixtures, and the fixtures; built on first use. */
export async function postgresTemplate<F>(
  adminUrl: string,
  spec: FixtureSpec<F>,
): Promise<{ name: string; fixtures: F }> {
  const name = `tpl_${spec.name.replace(/[^a-z0-9]/gi, "_").toLowerCase()}_${templateKey(spec)}`;
  const found = await templateFixtures<F>(adminUrl, name);
  if (found) return { name, fixtures: found };
  const base = isBase(spec) ? null : await postgresTemplate(adminUrl, MIGRATED);
  const building = await postgresDatabase(adminUrl, base?.name, "tpl_building");
  try {
    const env = childEnv(building.env);
    if (!base) await migrate(env);
    const fixtures = await makeFixtures(spec, env);
    await asAdmin(
      adminUrl,
      `COMMENT ON DATABASE ${building.name} IS '${Buffer.from(JSON.stringify(fixtures)).toString("base64")}'`,
    );
    await asAdmin(adminUrl, `ALTER DATABASE ${building.name} RENAME TO ${name}`);
    return { name, fixtures };
  } catch (err) {
    await building.drop().catch(() => {});
    // A concurrent builder won the rename: its equivalent template stays.
    const built = await templateFixtures<F>(adminUrl, name);
    if (built) return { name, fixtures: built };
    throw err;
  }
}
