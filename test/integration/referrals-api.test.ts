/**
 * Referrals (docs/integrating.md "Referrals", lib/domain/referrals.ts) over HTTP against the built app, on PGlite and
 * (with TEST_DATABASE_URL) PostgreSQL:
 *   every customer's referral code and `loyaltyData.referralLink` (the program's template with the code);
 *   a referral recorded by `payload.referralCode` in Create/Update resources or POST …/customers/{email}/referral;
 *   each refusal code (nothing written), idempotent replay, another program's key or code;
 *   completion at the referred customer's first qualifying earn (both sides, once; `referralEarned`); the referrer's
 *   cap; the erasure of a referrer; parallel first earns completing it once; the `referral.completed` events.
 *
 * Fixtures: program A (three tiers) with REFERRAL_SETTINGS (test/support/fixtures.ts), program B (no template) and
 * its key.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BACKENDS, customerPath, openStack, type ApiOptions, type Fixtures, type Stack } from "../support/stack";
import {
  fixtures,
  otherKey,
  otherProgram,
  programWithTiers,
  REFERRAL_SETTINGS,
  referralSettings,
} from "../support/fixtures";
import { assertProblem, problemPaths } from "../support/assertions";

const TEMPLATE = REFERRAL_SETTINGS.template;
const REFERRALS = REFERRAL_SETTINGS;
const CODE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/;

const SPEC = fixtures("referrals", programWithTiers(), otherProgram()).then(otherKey(), referralSettings());

let counter = 0;
const email = (label: string) => `${label}.${process.pid}.${++counter}@example.com`;

for (const backend of BACKENDS) {
  describe(`Referrals API [${backend}]`, () => {
    let app: Stack<Fixtures<typeof SPEC>>;
    before(async () => {
      app = await openStack(backend, SPEC, { start: true });
    });
    after(() => app?.close());

    const A = () => `/v1/programs/${app.programId}`;
    const B = () => `/v1/programs/${app.otherProgramId}`;
    const batch = (items: unknown[], options: ApiOptions = {}, base = A()) =>
      app.api("POST", `${base}/integrations/api`, { ...options, body: items });
    const create = async (address: string, payload: Record<string, unknown> = {}, base = A(), key?: string) => {
      const res = await batch([{ email: address, feature: "user", payload }], key ? { key } : {}, base);
      assert.equal(res.status, 201, res.text);
    };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const customer = async (address: string, programId = app.programId, key?: string): Promise<any> => {
      const res = await app.api("GET", customerPath(programId, address), key ? { key } : {});
      assert.equal(res.status, 200, res.text);
      return res.json;
    };
    const codeOf = async (address: string) => {
      const link: string = (await customer(address)).loyaltyData.referralLink;
      const code = new URL(link).searchParams.get("ref") ?? "";
      assert.match(code, CODE);
      return code;
    };
    const refer = (address: string, body: unknown, options: ApiOptions = {}) =>
      app.api("POST", `${customerPath(app.programId, address)}/referral`, { ...options, body });
    const earn = async (address: string, points: number) => {
      const res = await app.api("POST", `${customerPath(app.programId, address)}/balance/increase`, {
        body: { points },
      });
      assert.equal(res.status, 200, res.text);
      return res.json;
    };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const history = async (address: string): Promise<any[]> => {
      const res = await app.api("GET", `${customerPath(app.programId, address)}/transactions?limit=200`);
      assert.equal(res.status, 200, res.text);
      return res.json.data;
    };
    const state = async (address: string) => {
      const c = await customer(address);
      return {
        referral: c.referral,
        referralEarned: c.referralEarned,
        balance: c.loyaltyData.balance,
        ledger: (await history(address)).length,
      };
    };
    /** A referrer and a customer they referred (by the API), neither with any points. */
    const pair = async (label: string) => {
      const referrer = email(`${label}-referrer`);
      const referred = email(`${label}-referred`);
      await create(referrer);
      const code = await codeOf(referrer);
      await create(referred, { referralCode: code });
      return { referrer, referred, code };
    };

    test("every customer has a code; referralLink is the program's template with it (null without a template)", async () => {
      const a = email("code-a");
      const b = email("code-b");
      await batch([
        { email: a, feature: "user", payload: {} },
        { email: b, feature: "user", payload: {} },
      ]);
      const [ca, cb] = [await customer(a), await customer(b)];
      const [codeA, codeB] = [await codeOf(a), await codeOf(b)];
      assert.notEqual(codeA, codeB);
      assert.equal(ca.loyaltyData.referralLink, TEMPLATE.replace("{code}", codeA));
      assert.equal(ca.referral, null);
      assert.equal(ca.referralEarned, false);
      assert.equal(cb.referral, null);
      const other = email("code-other");
      await create(other, {}, B(), app.otherKey);
      assert.equal((await customer(other, app.otherProgramId, app.otherKey)).loyaltyData.referralLink, null);
    });

    test("payload.referralCode on a new customer records the referral (code in any case, spaces around)", async () => {
      const referrer = email("batch-referrer");
      await create(referrer);
      const code = await codeOf(referrer);
      const referred = email("batch-referred");
      await create(referred, { firstName: "Ada", referralCode: `  ${code.toLowerCase()} ` });
      const c = await customer(referred);
      assert.equal(c.referral, code, "`referral` holds the referrer's code");
      assert.equal(c.referralEarned, false);
      assert.equal(c.userData.firstName, "Ada");
      // The same item again (an integrator re-sending its users) changes nothing and is not refused.
      await create(referred, { referralCode: code });
      assert.equal((await customer(referred)).referral, code);
    });

    test("POST …/referral: 200 Customer with `referral`; the same code again and an Idempotency-Key replay", async () => {
      const referrer = email("post-referrer");
      const referred = email("post-referred");
      await create(referrer);
      await create(referred);
      const code = await codeOf(referrer);
      const first = await refer(referred, { code }, { headers: { "idempotency-key": `ref-${referred}` } });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.email, referred);
      assert.equal(first.json.referral, code);
      assert.equal(first.headers.get("idempotent-replayed"), null);
      const replay = await refer(referred, { code }, { headers: { "idempotency-key": `ref-${referred}` } });
      assert.equal(replay.status, 200);
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(replay.json, first.json);
      const again = await refer(referred, { code: code.toLowerCase() });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.json.referral, code);
    });

    test("refusals, each with its code and path, and nothing written", async () => {
      const { referrer, referred, code } = await pair("refuse");
      const other = email("refuse-other");
      await create(other);
      const otherCode = await codeOf(other);
      const fresh = email("refuse-fresh");
      await create(fresh);
      const before = { referred: await state(referred), fresh: await state(fresh), referrer: await state(referrer) };

      assert.deepEqual(
        problemPaths(assertProblem(await refer(fresh, { code: "NOPE2345" }), 400, "referral_code_unknown")),
        ["code"],
      );
      assertProblem(await refer(fresh, { code: await codeOf(fresh) }), 400, "referral_self");
      assertProblem(await refer(referred, { code: otherCode }), 409, "referral_already_recorded");
      // A loop: the referrer cannot be referred by the customer they referred.
      assertProblem(await refer(referrer, { code: await codeOf(referred) }), 400, "referral_self");
      assertProblem(await refer(fresh, {}), 400, "validation_failed");
      assertProblem(await refer(fresh, { code: code, extra: 1 }), 400, "validation_failed");
      assertProblem(
        await app.api("POST", `${customerPath(app.programId, email("nobody"))}/referral`, { body: { code } }),
        404,
        "customer_not_found",
      );
      // Program B's key on program A's path; program B's customer's code in program A.
      assertProblem(await refer(fresh, { code }, { key: app.otherKey }), 404, "not_found");
      const outsider = email("refuse-outsider");
      await create(outsider, {}, B(), app.otherKey);
      if (backend === "postgres") {
        // Program B shows no link (no template): its customer's code is read from the database (PostgreSQL: while
        // the app runs).
        const [row] = await app.query<{ code: string }>(
          `SELECT "referralCode" AS code FROM "Customer" WHERE email = $1`,
          [outsider],
        );
        assertProblem(await refer(fresh, { code: row!.code }), 400, "referral_code_unknown");
      }
      // A batch with an unknown code: refused whole, by path; the new customer in it is not created.
      const never = email("refuse-never");
      const res = await batch([
        { email: never, feature: "user", payload: {} },
        { email: fresh, feature: "user", payload: { referralCode: "NOPE2345" } },
      ]);
      assert.deepEqual(problemPaths(assertProblem(res, 400, "referral_code_unknown")), ["[1].payload.referralCode"]);
      assertProblem(await app.api("GET", customerPath(app.programId, never)), 404, "customer_not_found");

      assert.deepEqual(
        { referred: await state(referred), fresh: await state(fresh), referrer: await state(referrer) },
        before,
      );

      // After the first earn (any earn, even below the qualifying minimum): 409.
      await earn(fresh, 1);
      const earned = await state(fresh);
      assertProblem(await refer(fresh, { code }), 409, "referral_after_first_earn");
      assert.deepEqual(problemPaths(assertProblem(await create409(fresh, code), 409, "referral_after_first_earn")), [
        "[0].payload.referralCode",
      ]);
      assert.deepEqual(await state(fresh), earned);
    });
    const create409 = (address: string, code: string) =>
      batch([{ email: address, feature: "user", payload: { referralCode: code } }]);

    test("the first qualifying earn rewards both sides once; smaller earns before it do not", async () => {
      const { referrer, referred, code } = await pair("complete");
      await earn(referred, REFERRALS.minEarn - 1);
      assert.equal((await customer(referred)).referralEarned, false, "an earn below the minimum does not qualify");
      const answer = await earn(referred, REFERRALS.minEarn);
      // The answer is the earn's own entry and balance at that point; the referral points are entries of their own.
      assert.equal(answer.transaction.points, REFERRALS.minEarn);
      const c = await customer(referred);
      assert.equal(c.referral, code);
      assert.equal(c.referralEarned, true);
      assert.equal(c.loyaltyData.balance, 2 * REFERRALS.minEarn - 1 + REFERRALS.referred);
      assert.equal(
        c.customerTier.currentTierPoints,
        2 * REFERRALS.minEarn - 1 + REFERRALS.referred,
        "referral points are earns: they count towards tiers",
      );
      const bonus = (await history(referred)).filter((e) => e.reason === "referral");
      assert.equal(bonus.length, 1);
      assert.equal(bonus[0].type, "earn");
      assert.equal(bonus[0].source, "system");
      assert.equal(bonus[0].points, REFERRALS.referred);
      const r = await customer(referrer);
      assert.equal(r.loyaltyData.balance, REFERRALS.referrer);
      assert.equal(r.referralEarned, false, "referralEarned is about the customer's own referral");
      assert.deepEqual(
        (await history(referrer)).map((e) => [e.type, e.reason, e.points]),
        [["earn", "referral", REFERRALS.referrer]],
      );
      // Once: later earns add only themselves.
      await earn(referred, 100);
      assert.equal(
        (await customer(referred)).loyaltyData.balance,
        2 * REFERRALS.minEarn - 1 + REFERRALS.referred + 100,
      );
      assert.equal((await customer(referrer)).loyaltyData.balance, REFERRALS.referrer);
    });

    test("a referrer's referral points are not their own qualifying earn", async () => {
      const top = email("chain-top");
      await create(top);
      const middle = email("chain-middle");
      await create(middle, { referralCode: await codeOf(top) });
      const bottom = email("chain-bottom");
      await create(bottom, { referralCode: await codeOf(middle) });
      await earn(bottom, REFERRALS.minEarn);
      assert.equal((await customer(middle)).loyaltyData.balance, REFERRALS.referrer);
      assert.equal((await customer(middle)).referralEarned, false);
      assert.equal((await customer(top)).loyaltyData.balance, 0);
      await earn(middle, REFERRALS.minEarn);
      assert.equal((await customer(middle)).referralEarned, true);
      assert.equal((await customer(top)).loyaltyData.balance, REFERRALS.referrer);
    });

    test(`over the cap (${REFERRALS.cap} in ${REFERRALS.capDays} days) the referral completes without the referrer's points`, async () => {
      const referrer = email("cap-referrer");
      await create(referrer);
      const code = await codeOf(referrer);
      const referred = Array.from({ length: REFERRALS.cap + 1 }, (_, i) => email(`cap-referred-${i}`));
      await batch(referred.map((address) => ({ email: address, feature: "user", payload: { referralCode: code } })));
      for (const address of referred) await earn(address, REFERRALS.minEarn);
      for (const address of referred) {
        const c = await customer(address);
        assert.equal(c.referralEarned, true);
        assert.equal(
          c.loyaltyData.balance,
          REFERRALS.minEarn + REFERRALS.referred,
          "the referred side is never capped",
        );
      }
      assert.equal((await customer(referrer)).loyaltyData.balance, REFERRALS.cap * REFERRALS.referrer);
    });

    test("an erased referrer's code stops working; their open referral still rewards the referred customer", async () => {
      const { referrer, referred, code } = await pair("erased");
      const res = await app.api("DELETE", `${A()}/integrations/api`, { body: [{ email: referrer, feature: "user" }] });
      assert.equal(res.status, 204, res.text);
      const late = email("erased-late");
      await create(late);
      assertProblem(await refer(late, { code }), 400, "referral_code_unknown");
      await earn(referred, REFERRALS.minEarn);
      const c = await customer(referred);
      assert.equal(c.referralEarned, true);
      assert.equal(c.loyaltyData.balance, REFERRALS.minEarn + REFERRALS.referred);
    });

    test("parallel first earns complete the referral once", async () => {
      const { referrer, referred } = await pair("parallel");
      const n = 8;
      const answers = await Promise.all(
        Array.from({ length: n }, () =>
          app.api("POST", `${customerPath(app.programId, referred)}/balance/increase`, {
            body: { points: REFERRALS.minEarn },
          }),
        ),
      );
      for (const a of answers) assert.equal(a.status, 200, a.text);
      const c = await customer(referred);
      assert.equal(c.loyaltyData.balance, n * REFERRALS.minEarn + REFERRALS.referred);
      assert.equal((await history(referred)).filter((e) => e.reason === "referral").length, 1);
      assert.equal((await customer(referrer)).loyaltyData.balance, REFERRALS.referrer);
    });

    test("referral.completed events: one per side, the referrer's with `capped` (read last: PGlite with the app stopped)", async () => {
      await app.stopAll();
      const events = await app.query<{ data: Record<string, unknown> }>(
        `SELECT data FROM "Event" WHERE "programId" = $1::uuid AND type = 'referral.completed'`,
        [app.programId],
      );
      const sides = events.map((e) => e.data.side);
      assert.ok(events.length > 0);
      assert.ok(sides.includes("referred") && sides.includes("referrer"));
      assert.equal(events.filter((e) => e.data.side === "referrer" && e.data.capped === true).length, 1);
      for (const e of events) {
        assert.deepEqual(Object.keys(e.data).sort(), [
          "capped",
          "customerId",
          "points",
          "referralId",
          "referredId",
          "referrerId",
          "side",
        ]);
      }
      // The ledger invariant holds for every customer of the program: balance = sum of entries = sum of lots.
      const broken = await app.query(
        `SELECT l."customerId" FROM "LoyaltyData" l
         WHERE l."programId" = $1::uuid AND (l.balance <> (SELECT coalesce(sum(points), 0) FROM "LedgerEntry" e WHERE e."customerId" = l."customerId")
            OR l.balance <> (SELECT coalesce(sum(remaining), 0) FROM "PointLot" p WHERE p."customerId" = l."customerId"))`,
        [app.programId],
      );
      assert.deepEqual(broken, []);
    });
  });
}
