/**
 * Threat: a staff session cookie that outlives what ended it — replayed after sign-out, after a password change,
 * after the account was disabled, or kept alive by activity past its absolute lifetime. Each must be refused at
 * once on a page, a JSON route and /api/auth/session (which must not re-issue it).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { createStaff } from "@/lib/domain/staff";
import { TWO_PROGRAMS } from "../support/fixtures";
import { BACKENDS, openStack, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { signIn, signOut, staffCall } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";
const NEW_PASSWORD = "a different horse entirely";
/** The absolute lifetime of the last part of the suite: short, so that activity visibly cannot stretch it. */
const SHORT_LIFETIME_SECONDS = 4;

for (const backend of BACKENDS) {
  describe(`Threat: staff session replay [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    let programId = "";
    const accounts = { owner: "", signout: "", password: "", bystander: "", disabled: "", lifetime: "" };
    let disabledId = "";
    const secretFile = path.join(os.tmpdir(), `loyalty-auth-secret-replay-${process.pid}-${backend}`);

    before(async () => {
      stack = await openStack(backend, TWO_PROGRAMS);
      programId = stack.programId;
      await stack.withPrisma(async (prisma) => {
        for (const who of Object.keys(accounts) as (keyof typeof accounts)[]) {
          accounts[who] = `${who}.${Math.random().toString(36).slice(2, 8)}@example.com`;
          const { staffId } = await createStaff(prisma, {
            email: accounts[who],
            password: PASSWORD,
            programId,
            role: who === "owner" ? "owner" : "support",
          });
          if (who === "disabled") disabledId = staffId;
        }
      });
      app = await stack.start({ AUTH_SECRET_FILE: secretFile });
    });
    after(() => stack?.close());

    /** What the cookie gets on a JSON route, /api/auth/session and (`withPage`) a dashboard page. */
    async function probe(cookie: string, withPage = false) {
      const page = withPage
        ? await fetch(`${app.baseUrl}/dashboard/${programId}`, { headers: { cookie }, redirect: "manual" })
        : null;
      await page?.arrayBuffer();
      const json = await staffCall(app.baseUrl, cookie, "GET", `/api/staff/${programId}/search?q=a`);
      const session = await fetch(`${app.baseUrl}/api/auth/session`, { headers: { cookie } });
      const body = (await session.json()) as { staffId?: string };
      const reissued = session.headers
        .getSetCookie()
        .some(
          (c) =>
            /^next-auth\.session-token=[^;]+/.test(c) && !/expires=Thu, 01 Jan 1970/i.test(c) && !/Max-Age=0/i.test(c),
        );
      return {
        page: page?.status ?? null,
        pageLocation: page?.headers.get("location") ?? "",
        json: json.status,
        session: !!body.staffId,
        reissued,
      };
    }

    const assertLive = (p: Awaited<ReturnType<typeof probe>>, who: string) => {
      if (p.page !== null) assert.equal(p.page, 200, `${who}: page`);
      assert.equal(p.json, 200, `${who}: JSON route`);
      assert.equal(p.session, true, `${who}: /api/auth/session`);
    };
    const assertEnded = (p: Awaited<ReturnType<typeof probe>>, who: string) => {
      if (p.page !== null)
        assert.ok(
          p.page >= 300 && p.page < 400 && p.pageLocation.includes("/signin"),
          `${who}: page answered ${p.page} ${p.pageLocation}`,
        );
      assert.equal(p.json, 401, `${who}: JSON route`);
      assert.equal(p.session, false, `${who}: /api/auth/session still returns a session`);
      assert.equal(p.reissued, false, `${who}: /api/auth/session re-issued the token`);
    };

    test("after sign-out the old cookie is refused at once: page, JSON route, /api/auth/session", async () => {
      const cookie = (await signIn(app.baseUrl, accounts.signout, PASSWORD))!;
      const other = (await signIn(app.baseUrl, accounts.signout, PASSWORD))!;
      assertLive(await probe(cookie, true), "before sign-out");
      assert.ok((await signOut(app.baseUrl, cookie)) < 400);
      assertEnded(await probe(cookie, true), "after sign-out");
      // Only that session ended: the same account signed in elsewhere carries on.
      assertLive(await probe(other), "the account's other session");
      // An ended session is an expected answer, not an error in the log.
      assert.doesNotMatch(app.logs(), /JWT_SESSION_ERROR|StaffSessionEnded/);
    });

    test("a password change (CLI staff password) ends every session of the account, and only that account's", async () => {
      const cookies = [
        (await signIn(app.baseUrl, accounts.password, PASSWORD))!,
        (await signIn(app.baseUrl, accounts.password, PASSWORD))!,
      ];
      const bystander = (await signIn(app.baseUrl, accounts.bystander, PASSWORD))!;
      for (const c of cookies) assertLive(await probe(c), "before the change");
      // PGlite: the CLI may open the database only while the app is stopped (PostgreSQL: the same, for one code
      // path). The restart keeps the signing secret, so cookies stay valid across it; sessions signed in from now
      // on last SHORT_LIFETIME_SECONDS (last test).
      await stack.stopAll();
      const run = await stack.cliRun(["staff", "password", "--email", accounts.password, "--password", NEW_PASSWORD]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.json?.sessionsEnded, 2);
      app = await stack.start({
        AUTH_SECRET_FILE: secretFile,
        STAFF_SESSION_MAX_AGE_SECONDS: String(SHORT_LIFETIME_SECONDS),
      });
      for (const c of cookies) assertEnded(await probe(c), "after the change");
      assertLive(await probe(bystander), "another account");
      assert.equal(await signIn(app.baseUrl, accounts.password, PASSWORD), null);
      assert.ok(await signIn(app.baseUrl, accounts.password, NEW_PASSWORD));
    });

    test("disabling the account ends its sessions, and enabling it again does not revive them", async () => {
      const owner = (await signIn(app.baseUrl, accounts.owner, PASSWORD))!;
      const cookie = (await signIn(app.baseUrl, accounts.disabled, PASSWORD))!;
      assertLive(await probe(cookie), "before disabling");
      assert.equal(
        (
          await staffCall(app.baseUrl, owner, "PUT", `/api/staff/${programId}/staff/${disabledId}/disabled`, {
            disabled: true,
          })
        ).status,
        200,
      );
      assertEnded(await probe(cookie), "disabled");
      assert.equal(
        (
          await staffCall(app.baseUrl, owner, "PUT", `/api/staff/${programId}/staff/${disabledId}/disabled`, {
            disabled: false,
          })
        ).status,
        200,
      );
      assertEnded(await probe(cookie), "enabled again");
      assert.ok(await signIn(app.baseUrl, accounts.disabled, PASSWORD), "a fresh sign-in works");
    });

    test("a session ends at its absolute lifetime even when it is used all along", async () => {
      const started = Date.now();
      const cookie = (await signIn(app.baseUrl, accounts.lifetime, PASSWORD))!;
      const signedIn = Date.now();
      assert.ok(cookie);
      // The session row was made between `started` and `signedIn`: it is live until at least started + lifetime
      // and ended by signedIn + lifetime. Used about every 0.7 s meanwhile (each use re-issues the idle token).
      let uses = 0;
      while (Date.now() < started + (SHORT_LIFETIME_SECONDS - 1) * 1000) {
        const session = await fetch(`${app.baseUrl}/api/auth/session`, { headers: { cookie } });
        assert.ok(((await session.json()) as { staffId?: string }).staffId, "refused before its lifetime");
        uses++;
        await new Promise((r) => setTimeout(r, 700));
      }
      assert.ok(uses >= 2, `used only ${uses} times: sign-in took ${signedIn - started} ms`);
      await new Promise((r) => setTimeout(r, Math.max(0, signedIn + SHORT_LIFETIME_SECONDS * 1000 + 200 - Date.now())));
      assertEnded(await probe(cookie, true), "past its absolute lifetime");
    });
  });
}
