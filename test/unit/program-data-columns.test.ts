/**
 * Every table that holds program data carries `programId` (NOT NULL), so the data can be sharded by program
 * (docs/operating.md "Sharding by program"): a model added without it fails here unless it is listed below with the
 * reason it is not program data. Read from prisma/schema.prisma, the source of the migrations.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";

const SCHEMA = readFileSync(path.resolve(import.meta.dirname, "../../prisma/schema.prisma"), "utf8");

/** The models that are not program data, each with its reason. */
const NOT_PROGRAM_DATA: Record<string, string> = {
  Program: "the program itself: its id is the distribution key",
  RateBucket:
    "rate-limit counters keyed by api key or customer id: short-lived, rebuilt from nothing when lost, read by key only",
  StaffUser: "a staff account may belong to several programs (StaffMembership carries the program)",
  StaffSession: "a signed-in staff account, across its programs",
  StaffSignInThrottle: "failed sign-ins per e-mail or address, before any program is known",
  StaffTrustedAddress: "the addresses a staff account signed in from, across its programs",
  StaffRecoveryCode: "a staff account's second-factor recovery codes, across its programs",
  StaffLink:
    "a one-time link: a password reset is the account's, across its programs (an invitation names its program)",
  AuditLog:
    "programId is nullable on purpose: a failed sign-in with an e-mail that is no account's belongs to no program; every program event has it",
};

function models(schema: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of schema.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)) found.set(m[1]!, m[2]!);
  return found;
}

/** The models, not allow-listed, without a NOT NULL uuid programId. */
const withoutProgramId = (schema: string) =>
  [...models(schema)]
    .filter(([name, body]) => !(name in NOT_PROGRAM_DATA) && !/^\s+programId\s+String\s+@db\.Uuid\b/m.test(body))
    .map(([name]) => name);

test("every model that holds program data has a NOT NULL programId", () => {
  assert.ok(models(SCHEMA).size > 20, `the schema's models were read (${models(SCHEMA).size})`);
  assert.deepEqual(
    withoutProgramId(SCHEMA),
    [],
    "models without a NOT NULL programId (add it, or list the model with its reason)",
  );
});

test("the allow-list names only models that exist", () => {
  const all = models(SCHEMA);
  for (const name of Object.keys(NOT_PROGRAM_DATA)) assert.ok(all.has(name), `${name} is not a model any more`);
});

test("the check can fail: a model without programId, or with a nullable one, is found", () => {
  const stray = `model Stray {\n  id String @id\n  customerId String @db.Uuid\n}\n`;
  const optional = `model Loose {\n  id String @id\n  programId String? @db.Uuid\n}\n`;
  assert.deepEqual(withoutProgramId(`${SCHEMA}\n${stray}\n${optional}`), ["Stray", "Loose"]);
});
