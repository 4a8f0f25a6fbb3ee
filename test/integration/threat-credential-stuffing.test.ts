/**
 * Threat: guessing staff passwords — many tries on one account (from many addresses), or many accounts from one
 * address — and learning which e-mails are staff accounts from the answers. Sign-in is throttled per account and
 * per client address (backoff after 5 failures, a lock after 10), the answers and their cost are the same whether
 * or not the account exists, and failures and locks are in the audit log.
 *
 * The app runs with TRUST_PROXY=1 (one trusted proxy: the client address is X-Forwarded-For's last entry) and a
 * short lock; first with a 1 ms backoff step (the ladder up to the lock in seconds), then restarted with a 2 s one
 * (the backoff, observable whatever the machine's speed). The exact ladder is test/unit/sign-in-throttle-rules.test.ts.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { backoffMs } from "@/lib/domain/sign-in-throttle-rules";
import { createStaff } from "@/lib/domain/staff";
import { TWO_PROGRAMS } from "../support/fixtures";
import { BACKENDS, openStack, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { attemptSignIn, csrf } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";
const WRONG = "not the right password";
const LOCK_SECONDS = 4;
/** The first start's backoff step: the ladder up to the lock takes milliseconds. */
const LADDER_STEP_MS = 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let addressCounter = 0;
/** A fresh client address, so that a test about an account is not throttled by its address. */
const freshAddress = () => `198.51.100.${++addressCounter}`;

for (const backend of BACKENDS) {
  describe(`Threat: credential stuffing against staff sign-in [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    const suffix = Math.random().toString(36).slice(2, 8);
    const known = `owner.${suffix}@example.com`;
    const unknown = `nobody.${suffix}@example.com`;
    const bystander = `bystander.${suffix}@example.com`;
    const secretFile = path.join(os.tmpdir(), `loyalty-auth-secret-stuffing-${process.pid}-${backend}`);
    let token: { cookie: string; csrfToken: string };

    const start = async (backoffBaseMs: number) => {
      app = await stack.start({
        AUTH_SECRET_FILE: secretFile,
        TRUST_PROXY: "1",
        STAFF_SIGNIN_BACKOFF_BASE_MS: String(backoffBaseMs),
        STAFF_SIGNIN_LOCK_SECONDS: String(LOCK_SECONDS),
      });
      token = await csrf(app.baseUrl);
    };

    before(async () => {
      stack = await openStack(backend, TWO_PROGRAMS);
      const { programId } = stack;
      await stack.withPrisma(async (prisma) => {
        await createStaff(prisma, { email: known, password: PASSWORD, programId, role: "owner" });
        await createStaff(prisma, { email: bystander, password: PASSWORD, programId, role: "support" });
      });
      await start(LADDER_STEP_MS);
    });
    after(() => stack?.close());

    const attempt = async (email: string, password: string, address = freshAddress()) => {
      const started = performance.now();
      // The first entry is what the client claims; with one trusted proxy only the last one counts.
      const r = await attemptSignIn(app.baseUrl, email, password, {
        token,
        headers: { "x-forwarded-for": `203.0.113.9, ${address}` },
      });
      return { status: r.status, error: r.error, signedIn: !!r.cookie, ms: performance.now() - started };
    };
    const answer = (r: { status: number; error: string | null; signedIn: boolean }) =>
      r.signedIn ? "signed in" : `${r.status} ${r.error}`;

    /** Ten failures against `email`, each from a new address, then one more try (the right password if it has one). */
    async function toTheLock(email: string, finalPassword: string) {
      const answers: string[] = [];
      const ms: number[] = [];
      for (let failure = 1; failure <= 10; failure++) {
        // Each try waits out the backoff of the failures before it (16 steps before the 10th), so that all ten are
        // checked: a fast round trip beats 16 ms, and a refused try is no failure.
        const wait = backoffMs(failure - 1, { backoffBaseMs: LADDER_STEP_MS, lockMs: LOCK_SECONDS * 1000 });
        if (wait) await sleep(wait + 5);
        const r = await attempt(email, WRONG);
        answers.push(answer(r));
        ms.push(r.ms);
      }
      answers.push(answer(await attempt(email, finalPassword)));
      return { answers, ms, lockedAt: Date.now() };
    }

    test("per account: the 10th failure locks it, even against the right password, for a while; unknown e-mails answer alike", async () => {
      const [real, ghost] = await Promise.all([toTheLock(known, PASSWORD), toTheLock(unknown, WRONG)]);
      assert.deepEqual(real.answers, [...Array(10).fill("401 CredentialsSignin"), "401 TooManyAttempts"]);
      assert.deepEqual(ghost.answers, real.answers, "an unknown e-mail is answered differently");
      // Both pay for bcrypt: an unknown e-mail is not answered markedly faster (medians of the checked tries).
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      assert.ok(
        median(ghost.ms) > median(real.ms) * 0.5,
        `unknown ${median(ghost.ms)} ms vs known ${median(real.ms)} ms`,
      );
      // The lock ends with a clean slate: the right password works again.
      await sleep(Math.max(0, real.lockedAt + LOCK_SECONDS * 1000 + 200 - Date.now()));
      assert.equal(answer(await attempt(known, PASSWORD)), "signed in");
    });

    test("per account: after 5 failures the next try waits for the backoff, checked or not, known or unknown", async () => {
      await stack.stopAll();
      await start(2000);
      for (const email of [known, unknown]) {
        for (let i = 0; i < 5; i++) assert.equal(answer(await attempt(email, WRONG)), "401 CredentialsSignin", email);
        assert.equal(answer(await attempt(email, email === known ? PASSWORD : WRONG)), "401 TooManyAttempts", email);
      }
    });

    test("per address: many accounts from one address back off too; other addresses are unaffected", async () => {
      const address = freshAddress();
      for (let i = 0; i < 5; i++)
        assert.equal(answer(await attempt(`guess${i}.${suffix}@example.com`, WRONG, address)), "401 CredentialsSignin");
      // A sixth account from the same address, at once: refused without a check…
      assert.equal(answer(await attempt(`guess5.${suffix}@example.com`, WRONG, address)), "401 TooManyAttempts");
      // …even a real account with its right password, from that address…
      assert.equal(answer(await attempt(bystander, PASSWORD, address)), "401 TooManyAttempts");
      // …which from another address signs in at once.
      assert.equal(answer(await attempt(bystander, PASSWORD)), "signed in");
    });

    test("failures and locks are in the audit log, for known and unknown e-mails, with the client address", async () => {
      await stack.stopAll(); // PGlite is read only while the app is stopped
      const rows = await stack.query<{
        action: string;
        programId: string | null;
        staffId: string | null;
        staffEmail: string;
        after: { address: string; lockedKey?: string };
      }>(
        `SELECT action, "programId", "staffId", "staffEmail", after FROM "AuditLog" WHERE action LIKE 'staff.signin%' ORDER BY "createdAt"`,
      );
      const of = (email: string, action: string) => rows.filter((r) => r.staffEmail === email && r.action === action);
      // 10 before the lock and 5 before the backoff; refused tries checked no password and are no failures.
      assert.equal(of(known, "staff.signin_failed").length, 15);
      assert.equal(of(unknown, "staff.signin_failed").length, 15);
      assert.deepEqual(
        of(known, "staff.signin_locked").map((r) => r.after.lockedKey),
        ["account"],
      );
      assert.deepEqual(
        of(unknown, "staff.signin_locked").map((r) => r.after.lockedKey),
        ["account"],
      );
      assert.ok(
        of(known, "staff.signin_failed").every(
          // In the audit log of the account's program (issue 28), where its owners see them.
          (r) => r.staffId && r.programId === stack.programId && r.after.address.startsWith("198.51.100."),
        ),
      );
      assert.ok(of(unknown, "staff.signin_failed").every((r) => r.staffId === null && r.programId === null));
      // Successful sign-ins are not failures.
      assert.equal(rows.filter((r) => r.staffEmail === bystander).length, 0);
    });
  });
}
