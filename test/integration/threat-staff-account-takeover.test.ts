/**
 * A team that manages itself (issue 28), and the ways it could be used to take an account over:
 * - threat-invite-token-reuse: a one-time link (invitation or reset) used twice, at once or later, or after it
 *   expired; the token found in the database or the audit log (only its hash is stored).
 * - threat-totp-bypass: signing in to an account with a second factor with the password alone, a wrong code, a code
 *   used already (replay), a recovery code used already; opening a program that requires a second factor without one.
 * - removed or reset members keeping their sessions; a password change without the current password; members
 *   (not owners) inviting, resetting, removing or changing the requirement.
 * One stack per backend; the app runs with TRUST_PROXY=1 so each part signs in from its own address.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import * as OTPAuth from "otpauth";
import { createStaff } from "@/lib/domain/staff";
import { createStaffLink } from "@/lib/domain/staff-links";
import { TWO_PROGRAMS } from "../support/fixtures";
import { BACKENDS, openStack, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { attemptSignIn, csrf, staffCall } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";
const NEW_PASSWORD = "a brand new passphrase";

/** The TOTP code an authenticator app shows for `secret`, `offsetSteps` 30-second steps from now. */
const totp = (secret: string, offsetSteps = 0) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({
    timestamp: Date.now() + offsetSteps * 30_000,
  });
const tokenOf = (linkPath: string) => linkPath.split("#")[1]!;

for (const backend of BACKENDS) {
  describe(`Staff team and second factor [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    let programId = "";
    let otherProgramId = "";
    const s = Math.random().toString(36).slice(2, 8);
    const owner = `owner.${s}@example.com`;
    const support = `support.${s}@example.com`;
    const elsewhere = `elsewhere.${s}@example.com`; // an account of the other program only
    const invited = `invited.${s}@example.com`;
    const late = `late.${s}@example.com`;
    const cliInvited = `cli.${s}@example.com`;
    let expiredToken = "";
    let cliLink = "";
    let ownerCookie = "";
    let supportCookie = "";
    /** The invited member's latest session, carried from test to test (each bcrypt sign-in costs ~0.3 s or more). */
    let invitedCookie = "";
    let elsewhereId = "";
    let ownerId = "";
    let supportId = "";
    const passwords = new Map<string, string>();
    const seenTokens: string[] = [];
    let n = 0;
    const from = () => ({ "x-forwarded-for": `198.51.100.${++n}` });

    const signIn = async (email: string, password: string, code?: string) => {
      const r = await attemptSignIn(app.baseUrl, email, password, {
        token: await csrf(app.baseUrl),
        headers: from(),
        code,
      });
      return r;
    };
    const call = (cookie: string | null, method: string, p: string, body?: unknown) =>
      staffCall(app.baseUrl, cookie, method, p, body);
    const staffApi = (p: string) => `/api/staff/${programId}/staff${p}`;

    before(async () => {
      stack = await openStack(backend, TWO_PROGRAMS);
      programId = stack.programId;
      otherProgramId = (stack as unknown as { otherProgramId: string }).otherProgramId;
      await stack.withPrisma(async (prisma) => {
        ownerId = (await createStaff(prisma, { email: owner, password: PASSWORD, programId, role: "owner" })).staffId;
        supportId = (await createStaff(prisma, { email: support, password: PASSWORD, programId, role: "support" }))
          .staffId;
        elsewhereId = (
          await createStaff(prisma, { email: elsewhere, password: PASSWORD, programId: otherProgramId, role: "owner" })
        ).staffId;
        // A link that expired (security time is real time: its row is moved back).
        const link = await prisma.$transaction((tx) =>
          createStaffLink(tx, { kind: "invite", email: late, programId, role: "viewer", createdById: null }),
        );
        expiredToken = tokenOf(link.path);
        seenTokens.push(expiredToken);
        await prisma.staffLink.updateMany({ where: { email: late }, data: { expiresAt: new Date(Date.now() - 1000) } });
      });
      // The CLI prints the link (PGlite: while no app runs).
      const printed = await stack.loyalty(
        "staff",
        "invite",
        "--email",
        cliInvited,
        "--program",
        programId,
        "--role",
        "manager",
        "--base-url",
        "https://loyalty.example.com",
      );
      cliLink = String(printed.link);
      seenTokens.push(tokenOf(cliLink));
      app = await stack.start({
        AUTH_SECRET_FILE: path.join(os.tmpdir(), `loyalty-auth-secret-team-${process.pid}-${backend}`),
        TRUST_PROXY: "1",
        STAFF_SIGNIN_BACKOFF_BASE_MS: "1",
      });
      ownerCookie = (await signIn(owner, PASSWORD)).cookie!;
      supportCookie = (await signIn(support, PASSWORD)).cookie!;
      assert.ok(ownerCookie && supportCookie);
    });
    after(() => stack?.close());

    test("the CLI prints an invitation link on the given origin; it sets the password once", async () => {
      assert.match(cliLink, /^https:\/\/loyalty\.example\.com\/account\/welcome#[\w-]{43}$/);
      const used = await call(null, "POST", "/api/account/link", { token: tokenOf(cliLink), password: PASSWORD });
      assert.equal(used.status, 200, used.text);
      assert.deepEqual(used.json, { kind: "invite", email: cliInvited });
      assert.ok((await signIn(cliInvited, PASSWORD)).cookie, "the invited manager signs in");
    });

    test("threat-invite-token-reuse: an owner's invitation works once, twice at once included; expired is refused", async () => {
      // Not an owner: refused, nothing created.
      const bySupport = await call(supportCookie, "POST", staffApi("/invites"), { email: invited, role: "manager" });
      assert.equal(bySupport.status, 403, bySupport.text);

      const res = await call(ownerCookie, "POST", staffApi("/invites"), {
        email: invited,
        role: "support",
        name: "Ivy",
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json!.added, false);
      assert.match(String(res.json!.path), /^\/account\/welcome#[\w-]{43}$/);
      const token = tokenOf(String(res.json!.path));
      seenTokens.push(token);

      // A short password is refused and the link stays good.
      const weak = await call(null, "POST", "/api/account/link", { token, password: "short" });
      assert.equal(weak.status, 400, weak.text);
      // Two uses at once (PostgreSQL: really concurrent): exactly one sets the password.
      const [a, b] = await stack.together(
        () => call(null, "POST", "/api/account/link", { token, password: PASSWORD }),
        () => call(null, "POST", "/api/account/link", { token, password: "the attacker's password" }),
      );
      assert.deepEqual([a!.status, b!.status].sort(), [200, 410], `${a!.text} ${b!.text}`);
      const winner = a!.status === 200 ? PASSWORD : "the attacker's password";
      passwords.set(invited, winner);
      const again = await call(null, "POST", "/api/account/link", { token, password: "yet another password" });
      assert.equal(again.status, 410);
      assert.equal(again.json!.code, "link_invalid");
      assert.ok((await signIn(invited, winner)).cookie, "the password of the one use that passed");
      assert.equal((await signIn(invited, "yet another password")).cookie, null);

      const expired = await call(null, "POST", "/api/account/link", { token: expiredToken, password: PASSWORD });
      assert.equal(expired.status, 410, expired.text);
      const unknown = await call(null, "POST", "/api/account/link", { token: "x".repeat(43), password: PASSWORD });
      assert.equal(unknown.status, 410);
      // 40 "é" are 40 characters but 80 bytes (bcrypt reads 72): the form refuses them as the domain would, before any
      // link is looked up. (That a made-up token costs no hash is test/unit/staff-accounts.test.ts's.)
      const tooManyBytes = await call(null, "POST", "/api/account/link", { token, password: "é".repeat(40) });
      assert.equal(tooManyBytes.status, 400, tooManyBytes.text);
      assert.match(tooManyBytes.text, /72 bytes/);
      // The same answer for a token that is no link's, a used one and an expired one; no account for `late`.
      assert.equal((await signIn(late, PASSWORD)).cookie, null);

      // The Staff page shows the new member, signed in once, with the owner's buttons.
      const page = await fetch(`${app.baseUrl}/dashboard/${programId}/staff`, { headers: { cookie: ownerCookie } });
      const html = await page.text();
      assert.equal(page.status, 200);
      assert.match(html, /last sign-in/);
      assert.match(html, new RegExp(`Reset the password of ${invited.replace(/\./g, "\\.")}`));
      assert.match(html, new RegExp(`Remove ${invited.replace(/\./g, "\\.")}`));
    });

    test("an existing account (another program's) is added at once; its password is not the owner's to reset", async () => {
      const res = await call(ownerCookie, "POST", staffApi("/invites"), { email: elsewhere, role: "viewer" });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json!.added, true);
      assert.equal(res.json!.path, null);
      const twice = await call(ownerCookie, "POST", staffApi("/invites"), { email: elsewhere, role: "viewer" });
      assert.equal(twice.status, 409);
      const cookie = (await signIn(elsewhere, PASSWORD)).cookie!;
      assert.equal((await call(cookie, "GET", `/api/staff/${programId}/search?q=a`)).status, 200);
      // It also belongs to a program this owner does not own.
      const reset = await call(ownerCookie, "POST", staffApi(`/${elsewhereId}/reset-link`));
      assert.equal(reset.status, 409, reset.text);
    });

    test("threat-invite-token-reuse: an owner's reset link sets a new password once and ends the member's sessions", async () => {
      const byEmail = await call(ownerCookie, "POST", staffApi("/invites"), { email: invited, role: "support" });
      assert.equal(byEmail.status, 409, "already a member");
      const id = await memberId(invited);
      const bySupport = await call(supportCookie, "POST", staffApi(`/${id}/reset-link`));
      assert.equal(bySupport.status, 403);
      const res = await call(ownerCookie, "POST", staffApi(`/${id}/reset-link`));
      assert.equal(res.status, 201, res.text);
      const token = tokenOf(String(res.json!.path));
      seenTokens.push(token);
      const memberSession = (await signIn(invited, passwords.get(invited)!)).cookie!;
      assert.ok(memberSession);
      const used = await call(null, "POST", "/api/account/link", { token, password: NEW_PASSWORD });
      assert.equal(used.status, 200, used.text);
      assert.equal(used.json!.kind, "reset");
      passwords.set(invited, NEW_PASSWORD);
      assert.equal((await call(null, "POST", "/api/account/link", { token, password: PASSWORD })).status, 410);
      // The session from before the reset has ended; the new password works, the old does not.
      assert.equal((await call(memberSession, "GET", `/api/staff/${programId}/search?q=a`)).status, 401);
      invitedCookie = (await signIn(invited, NEW_PASSWORD)).cookie!;
      assert.ok(invitedCookie);
    });

    test("changing one's own password needs the current one, ends the account's other sessions and keeps this one", async () => {
      // Two sessions of the member: the one from the reset test (this browser) and another (a second device).
      const current = invitedCookie;
      const other = (await signIn(invited, NEW_PASSWORD)).cookie!;
      assert.ok(current && other && current !== other);
      const search = (cookie: string) => call(cookie, "GET", `/api/staff/${programId}/search?q=a`);
      const wrong = await call(current, "POST", "/api/account/password", { current: "not it", password: PASSWORD });
      assert.equal(wrong.status, 400, wrong.text);
      assert.equal((wrong.json!.errors as { path: string }[])[0]!.path, "current");
      const signedOut = await call(null, "POST", "/api/account/password", {
        current: NEW_PASSWORD,
        password: PASSWORD,
      });
      assert.equal(signedOut.status, 401);
      assert.equal((await search(other)).status, 200, "nothing changed by the refusals");
      const ok = await call(current, "POST", "/api/account/password", { current: NEW_PASSWORD, password: PASSWORD });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.json!.signedIn, true);
      assert.ok(Number(ok.json!.sessionsEnded) >= 1, ok.text);
      passwords.set(invited, PASSWORD);
      // The other session is refused, on JSON routes and pages; the one that changed the password goes on.
      assert.equal((await search(other)).status, 401);
      const page = await fetch(`${app.baseUrl}/account`, { headers: { cookie: other }, redirect: "manual" });
      assert.ok([303, 307].includes(page.status) && /\/signin/.test(page.headers.get("location") ?? ""));
      assert.equal((await search(current)).status, 200);
      assert.equal((await fetch(`${app.baseUrl}/account`, { headers: { cookie: current } })).status, 200);
      // The old password is refused, the new one accepted.
      assert.equal((await signIn(invited, NEW_PASSWORD)).cookie, null);
      invitedCookie = (await signIn(invited, PASSWORD)).cookie!;
      assert.ok(invitedCookie);
    });

    test("threat-totp-bypass: with a second factor, the password alone, a wrong, replayed or used code is refused", async () => {
      const cookie = invitedCookie;
      const setup = await call(cookie, "POST", "/api/account/totp/setup");
      assert.equal(setup.status, 200, setup.text);
      const secret = String(setup.json!.secret);
      assert.match(String(setup.json!.uri), /^otpauth:\/\/totp\/Loyalty:.+secret=/);
      const bad = await call(cookie, "POST", "/api/account/totp/confirm", { code: totp(secret, 3) });
      assert.equal(bad.status, 400, bad.text);
      const enrolmentCode = totp(secret);
      const confirm = await call(cookie, "POST", "/api/account/totp/confirm", { code: enrolmentCode });
      assert.equal(confirm.status, 200, confirm.text);
      const codes = confirm.json!.recoveryCodes as string[];
      assert.equal(codes.length, 10);

      const alone = await signIn(invited, PASSWORD);
      assert.equal(alone.cookie, null);
      assert.equal(alone.error, "SecondFactorRequired");
      const wrongCode = await signIn(invited, PASSWORD, totp(secret, 5));
      assert.equal(wrongCode.cookie, null);
      // The code the enrolment used is spent: replaying it is refused. (The very string sent: a code computed again
      // here could belong to the next 30-second step by now, which is a fresh code.)
      assert.equal((await signIn(invited, PASSWORD, enrolmentCode)).cookie, null, "the confirmed code replayed");
      // The wrong password with the right code says nothing about the factor.
      const wrongPassword = await signIn(invited, "not the password", totp(secret, 1));
      assert.equal(wrongPassword.cookie, null);
      assert.equal(wrongPassword.error, "CredentialsSignin");
      // The next step's code (an app a little ahead) passes, once.
      const next = totp(secret, 1);
      assert.ok((await signIn(invited, PASSWORD, next)).cookie, "a fresh code signs in");
      assert.equal((await signIn(invited, PASSWORD, next)).cookie, null, "the same code twice");
      // A recovery code, once.
      invitedCookie = (await signIn(invited, PASSWORD, codes[0]!.toUpperCase())).cookie!;
      assert.ok(invitedCookie, "a recovery code signs in");
      assert.equal((await signIn(invited, PASSWORD, codes[0]!)).cookie, null, "a recovery code twice");
      const page = await fetch(`${app.baseUrl}/dashboard/${programId}/staff`, { headers: { cookie: ownerCookie } });
      assert.match(await page.text(), /second factor/);
    });

    test("threat-totp-bypass: a program that requires a second factor is closed to members without one", async () => {
      const bySupport = await call(supportCookie, "PUT", staffApi("/second-factor"), { required: true });
      assert.equal(bySupport.status, 403);
      // The owner has none yet: refused, so the setting never locks its author out.
      const first = await call(ownerCookie, "PUT", staffApi("/second-factor"), { required: true });
      assert.equal(first.status, 409, first.text);
      const setup = await call(ownerCookie, "POST", "/api/account/totp/setup");
      const ownerSecret = String(setup.json!.secret);
      const confirm = await call(ownerCookie, "POST", "/api/account/totp/confirm", { code: totp(ownerSecret) });
      assert.equal(confirm.status, 200, confirm.text);
      const on = await call(ownerCookie, "PUT", staffApi("/second-factor"), { required: true });
      assert.equal(on.status, 200, on.text);
      assert.equal(on.json!.required, true);
      // The support member (no second factor) is refused by every JSON route and sent to set one up by the pages.
      const refused = await call(supportCookie, "GET", `/api/staff/${programId}/search?q=a`);
      assert.equal(refused.status, 403);
      assert.equal(refused.json!.code, "second_factor_required");
      const page = await fetch(`${app.baseUrl}/dashboard/${programId}/customers`, {
        headers: { cookie: supportCookie },
        redirect: "manual",
      });
      assert.ok([303, 307, 200].includes(page.status));
      if (page.status !== 200) assert.match(page.headers.get("location") ?? "", /\/account\?required=/);
      else assert.match(await page.text(), /account\?required=/);
      // The member with one (invited, signed in above with a recovery code) still works; turning it off is refused
      // while required.
      assert.equal((await call(invitedCookie, "GET", `/api/staff/${programId}/search?q=a`)).status, 200);
      const keep = await call(invitedCookie, "POST", "/api/account/totp/disable", { password: PASSWORD });
      assert.equal(keep.status, 409, keep.text);
      const off = await call(ownerCookie, "PUT", staffApi("/second-factor"), { required: false });
      assert.equal(off.status, 200);
    });

    test("removing a member ends their sessions; an owner cannot remove themselves, support cannot remove anyone", async () => {
      const id = supportId;
      const self = await call(ownerCookie, "DELETE", staffApi(`/${ownerId}`));
      assert.equal(self.status, 409, self.text);
      const bySupport = await call(supportCookie, "DELETE", staffApi(`/${ownerId}`));
      assert.equal(bySupport.status, 403);
      const res = await call(ownerCookie, "DELETE", staffApi(`/${id}`));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json!.removed, true);
      assert.equal((await call(supportCookie, "GET", `/api/staff/${programId}/search?q=a`)).status, 401);
      const again = (await signIn(support, PASSWORD)).cookie!;
      assert.equal((await call(again, "GET", `/api/staff/${programId}/search?q=a`)).status, 403, "no longer a member");
    });

    test("every action is audited in the program; no token is stored or logged", async () => {
      await stack.stopAll(); // PGlite: read while no app runs
      const rows = await stack.query<{ action: string; programId: string | null; after: unknown; before: unknown }>(
        `SELECT action, "programId", "after", "before" FROM "AuditLog" WHERE "programId" = $1 OR "programId" IS NULL`,
        [programId],
      );
      const actions = new Set(rows.map((r) => r.action));
      for (const a of [
        "staff.invite",
        "staff.invite_accepted",
        "staff.add_existing",
        "staff.reset_link",
        "staff.password_reset",
        "staff.password_change",
        "staff.totp_enable",
        "staff.recovery_code_used",
        "staff.second_factor_setting",
        "staff.remove",
      ])
        assert.ok(actions.has(a), `${a} audited`);
      assert.ok(
        rows.some((r) => r.action === "staff.signin_failed" && JSON.stringify(r.after).includes("second_factor")),
        "a wrong code is a failed sign-in",
      );
      const text = JSON.stringify(rows);
      const links = await stack.query<{ tokenHash: string }>(`SELECT "tokenHash" FROM "StaffLink"`);
      for (const token of seenTokens) {
        assert.ok(!text.includes(token), "no token in the audit log");
        assert.ok(!links.some((l) => l.tokenHash.includes(token)), "only hashes stored");
      }
      const secrets = await stack.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "AuditLog" WHERE "after"::text ILIKE '%secret%' OR "after"::text ILIKE '%recoveryCodes":[%'`,
      );
      assert.equal(secrets[0]!.n, 0);
    });

    /** A member's id, read from the owner's Staff page (the role picker is labelled with it). */
    async function memberId(email: string): Promise<string> {
      const html = await (
        await fetch(`${app.baseUrl}/dashboard/${programId}/staff`, { headers: { cookie: ownerCookie } })
      ).text();
      const m = new RegExp(`for="role-([0-9a-f-]{36})"[^>]*>Role of (?:<!-- -->)?${email.replace(/\./g, "\\.")}`).exec(
        html,
      );
      assert.ok(m, `${email} on the Staff page`);
      return m[1]!;
    }
  });
}
