/**
 * Threat: a stranger keeps a staff member out by failing to sign in as them — ten wrong passwords, spaced, from any
 * address, locked the account for everyone. Now the account's lock still stops guessing from new addresses (the
 * credential-stuffing protection, threat-credential-stuffing.test.ts), but it does not hold back the member's
 * right password from an address the account has signed in from; guessing from that address is throttled by its
 * own (account, address) pair. Owners see the lock on the Staff page and can end it (audited), and the failures and
 * the lock are in the audit log of every program the account belongs to.
 *
 * TRUST_PROXY=1: the client address is X-Forwarded-For's last entry.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { backoffMs } from "@/lib/domain/sign-in-throttle-rules";
import { createStaff } from "@/lib/domain/staff";
import { TWO_PROGRAMS } from "../support/fixtures";
import { BACKENDS, openStack, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { attemptSignIn, csrf, staffCall } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";
const WRONG = "not the right password";
const STEP_MS = 1;
const LOCK_SECONDS = 120;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let counter = 0;
const freshAddress = () => `192.0.2.${++counter}`;

for (const backend of BACKENDS) {
  describe(`Threat: a stranger locks a staff member out [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    let token: { cookie: string; csrfToken: string };
    const suffix = Math.random().toString(36).slice(2, 8);
    const member = `member.${suffix}@example.com`;
    const owner = `owner.${suffix}@example.com`;
    const HOME = "198.18.0.7";
    const OWNER_HOME = "198.18.0.8";
    let memberId = "";
    let programId = "";
    let otherProgramId = "";
    let ownerCookie = "";

    before(async () => {
      stack = await openStack(backend, TWO_PROGRAMS);
      programId = stack.programId;
      otherProgramId = (stack as unknown as { otherProgramId: string }).otherProgramId;
      await stack.withPrisma(async (prisma) => {
        await createStaff(prisma, { email: owner, password: PASSWORD, programId, role: "owner" });
        memberId = (await createStaff(prisma, { email: member, password: PASSWORD, programId, role: "support" }))
          .staffId;
        if (otherProgramId)
          await createStaff(prisma, { email: member, password: PASSWORD, programId: otherProgramId, role: "viewer" });
      });
      app = await stack.start({
        AUTH_SECRET_FILE: path.join(os.tmpdir(), `loyalty-auth-secret-lockout-${process.pid}-${backend}`),
        TRUST_PROXY: "1",
        STAFF_SIGNIN_BACKOFF_BASE_MS: String(STEP_MS),
        STAFF_SIGNIN_LOCK_SECONDS: String(LOCK_SECONDS),
      });
      token = await csrf(app.baseUrl);
    });
    after(() => stack?.close());

    const attempt = async (email: string, password: string, address: string) => {
      const r = await attemptSignIn(app.baseUrl, email, password, {
        token,
        headers: { "x-forwarded-for": `203.0.113.9, ${address}` },
      });
      return r.cookie ? "signed in" : `${r.status} ${r.error}`;
    };

    /** `n` failures against `email`, each from `address()`, each after the backoff of the ones before. */
    async function fail(email: string, n: number, address: () => string, already = 0) {
      const answers: string[] = [];
      for (let failure = already + 1; failure <= already + n; failure++) {
        const wait = backoffMs(failure - 1, { backoffBaseMs: STEP_MS, lockMs: LOCK_SECONDS * 1000 });
        if (wait) await sleep(wait + 5);
        answers.push(await attempt(email, WRONG, address()));
      }
      return answers;
    }

    test("the member signs in once from home; the owner from theirs", async () => {
      assert.equal(await attempt(member, PASSWORD, HOME), "signed in");
      const r = await attemptSignIn(app.baseUrl, owner, PASSWORD, {
        token,
        headers: { "x-forwarded-for": `203.0.113.9, ${OWNER_HOME}` },
      });
      assert.ok(r.cookie);
      ownerCookie = r.cookie!;
    });

    test("ten failures from strangers' addresses lock the account for new addresses, not for the member at home", async () => {
      const answers = await fail(member, 10, freshAddress);
      assert.deepEqual(answers, Array(10).fill("401 CredentialsSignin"));
      // Credential stuffing is still stopped: the right password from an address the account never used is refused…
      assert.equal(await attempt(member, PASSWORD, freshAddress()), "401 TooManyAttempts");
      // …but the member, from where they signed in before, gets in.
      assert.equal(await attempt(member, PASSWORD, HOME), "signed in");
      // A wrong password from home is still a failure, and the lock is still on for new addresses.
      assert.equal(await attempt(member, WRONG, HOME), "401 CredentialsSignin");
      assert.equal(await attempt(member, PASSWORD, freshAddress()), "401 TooManyAttempts");
    });

    test("guessing from the member's own address is throttled by the (account, address) pair", async () => {
      // Nine more failures from home (one is counted above), each after its backoff: the tenth locks the pair.
      const answers = await fail(member, 9, () => HOME, 1);
      assert.deepEqual(answers, Array(9).fill("401 CredentialsSignin"));
      assert.equal(await attempt(member, PASSWORD, HOME), "401 TooManyAttempts", "the pair is locked now");
    });

    test("the owner sees the lock on the Staff page and ends it; the member signs in from anywhere again", async () => {
      const page = await fetch(`${app.baseUrl}/dashboard/${programId}/staff`, {
        headers: { cookie: ownerCookie, "x-forwarded-for": `203.0.113.9, ${OWNER_HOME}` },
      });
      const html = await page.text();
      assert.equal(page.status, 200);
      assert.match(html, /sign-in locked until/);
      assert.match(html, new RegExp(`Unlock ${member.replace(/\./g, "\\.")}`));

      const res = await staffCall(app.baseUrl, ownerCookie, "DELETE", `/api/staff/${programId}/staff/${memberId}/lock`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json!.wasLocked, true);
      // The account's lock and its pairs end; the lock of the home address itself (ten failures from it, whoever
      // they were against) is the address's and stays: from anywhere else the member signs in at once.
      assert.equal(await attempt(member, PASSWORD, freshAddress()), "signed in");
      const after = await fetch(`${app.baseUrl}/dashboard/${programId}/staff`, { headers: { cookie: ownerCookie } });
      assert.doesNotMatch(await after.text(), /sign-in locked until/);
    });

    test("a support member cannot unlock anyone", async () => {
      const cookie = (
        await attemptSignIn(app.baseUrl, member, PASSWORD, {
          token,
          headers: { "x-forwarded-for": `203.0.113.9, ${freshAddress()}` },
        })
      ).cookie!;
      const res = await staffCall(app.baseUrl, cookie, "DELETE", `/api/staff/${programId}/staff/${memberId}/lock`);
      assert.equal(res.status, 403, res.text);
    });

    test("failures, locks and the unlock are in the audit log of every program the account belongs to", async () => {
      await stack.stopAll(); // PGlite is read only while the app is stopped
      const rows = await stack.query<{ action: string; programId: string | null; staffEmail: string }>(
        `SELECT action, "programId", "staffEmail" FROM "AuditLog" WHERE "staffEmail" IN ($1, $2) ORDER BY "createdAt"`,
        [member, owner],
      );
      const count = (action: string, program: string | null) =>
        rows.filter((r) => r.action === action && r.programId === program && r.staffEmail === member).length;
      // 10 from strangers, 1 + 9 from home: 20 failures, each in both programs, none without a program.
      assert.equal(count("staff.signin_failed", programId), 20);
      if (otherProgramId) assert.equal(count("staff.signin_failed", otherProgramId), 20);
      assert.equal(count("staff.signin_failed", null), 0);
      assert.ok(count("staff.signin_locked", programId) >= 2, "the account lock and the pair lock");
      if (otherProgramId)
        assert.equal(count("staff.signin_locked", otherProgramId), count("staff.signin_locked", programId));
      assert.equal(
        rows.filter((r) => r.action === "staff.unlock" && r.programId === programId && r.staffEmail === owner).length,
        1,
      );
    });
  });
}
