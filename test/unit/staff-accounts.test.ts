/**
 * Staff accounts on a real (in-memory PGlite) database: adding an existing account to another program keeps its
 * password; only setStaffPassword changes it; password length is checked the same way everywhere; a one-time link is
 * looked up before its password is hashed.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createProgram } from "@/lib/domain/programs";
import { createStaff, membershipsOf, setStaffPassword, verifyStaffPassword } from "@/lib/domain/staff";
import { redeemStaffLink } from "@/lib/domain/staff-links";
import { AppError } from "@/lib/errors";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { memoryDatabase } from "../support/pglite-memory";

describe("staff accounts", () => {
  let prisma: PrismaClient;
  let close: () => Promise<void>;
  let first: string;
  let second: string;
  before(async () => {
    ({ prisma, close } = await memoryDatabase());
    ({ programId: first } = await createProgram(prisma, { name: "First" }));
    ({ programId: second } = await createProgram(prisma, { name: "Second" }));
  });
  after(() => close());

  test("a second program keeps the account's password and gets its own role", async () => {
    const made = await createStaff(prisma, {
      email: " Ada@Example.com ",
      password: "original password",
      programId: first,
      role: "owner",
    });
    assert.deepEqual(
      { ...made, staffId: undefined },
      { staffId: undefined, email: "ada@example.com", role: "owner", accountExisted: false },
    );
    const again = await createStaff(prisma, {
      email: "ada@example.com",
      password: "another password",
      programId: second,
      role: "viewer",
    });
    assert.equal(again.staffId, made.staffId);
    assert.equal(again.accountExisted, true);
    assert.ok(await verifyStaffPassword(prisma, "ada@example.com", "original password"));
    assert.equal(await verifyStaffPassword(prisma, "ada@example.com", "another password"), null);
    const roles = (await membershipsOf(prisma, made.staffId)).map((m) => m.role).sort();
    assert.deepEqual(roles, ["owner", "viewer"]);
  });

  test("setStaffPassword changes it; an unknown e-mail is 404", async () => {
    await setStaffPassword(prisma, { email: "ADA@example.com", password: "a brand new password" });
    assert.ok(await verifyStaffPassword(prisma, "ada@example.com", "a brand new password"));
    assert.equal(await verifyStaffPassword(prisma, "ada@example.com", "original password"), null);
    await assert.rejects(
      setStaffPassword(prisma, { email: "nobody@example.com", password: "long enough pass" }),
      (e: AppError) => e.status === 404,
    );
  });

  test("passwords shorter than 12 characters or longer than 72 bytes are refused, and nothing is written", async () => {
    for (const password of ["short pass1", "é".repeat(37)]) {
      await assert.rejects(
        createStaff(prisma, { email: "grace@example.com", password, programId: first, role: "support" }),
        (e: AppError) => e.status === 400,
      );
      await assert.rejects(
        setStaffPassword(prisma, { email: "ada@example.com", password }),
        (e: AppError) => e.status === 400,
      );
    }
    assert.equal(await prisma.staffUser.count({ where: { email: "grace@example.com" } }), 0);
  });

  test("threat-invite-token-reuse: a made-up link token costs no password hash (the link is looked up first)", async () => {
    // 40 × "é" is 80 bytes: the hash's own check (bcrypt reads 72) refuses it with a 400 when it runs. For a token that
    // is no link's, the answer is the link's 410: the password was never checked, so never hashed either.
    let used = false;
    await assert.rejects(
      redeemStaffLink(prisma, { token: "y".repeat(43), password: "é".repeat(40) }, async () => {
        used = true;
      }),
      (e: AppError) => e.status === 410 && e.code === "link_invalid",
    );
    assert.equal(used, false);
  });
});
