/**
 * No lost update on the staff side: two staff sessions open the same thing; the first saves; the second saves from
 * the version it opened (If-Match) and is refused with 409 `stale_edit`, naming what was changed, and nothing
 * changes; from the new version its save goes through. One case per staff edit route.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { applyUserBatch } from "@/lib/domain/customers";
import { createStaff } from "@/lib/domain/staff";
import { createWebhook } from "@/lib/domain/webhooks";
import { TWO_PROGRAMS } from "../support/fixtures";
import { BACKENDS, openStack, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { signIn, staffCall } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";

/** One staff edit: where it goes, the row whose version it carries, and the two sessions' changes. */
interface EditCase {
  name: string;
  method: string;
  path: () => string;
  /** The table and id of the versioned row, and how to read what the edit changes. */
  table: string;
  id: () => string;
  idColumn?: string;
  /** A save that opens the case (its answer is the version the two sessions open), and that A makes again. */
  prime: unknown;
  first: unknown;
  second: unknown;
  /** A word the 409's message names (a field the first save changed), when the first save is audited by field. */
  names?: string;
}

for (const backend of BACKENDS) {
  describe(`Staff edits from a stale version [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    let programId = "";
    const ids: Record<string, string> = {};
    let ownerA = "";
    let ownerB = "";

    before(async () => {
      stack = await openStack(backend, TWO_PROGRAMS);
      programId = stack.programId;
      const tag = Math.random().toString(36).slice(2, 8);
      const [a, b, member] = [`a.${tag}@example.com`, `b.${tag}@example.com`, `m.${tag}@example.com`];
      await stack.withPrisma(async (prisma) => {
        await createStaff(prisma, { email: a, password: PASSWORD, programId, role: "owner" });
        await createStaff(prisma, { email: b, password: PASSWORD, programId, role: "owner" });
        ids.member = (
          await createStaff(prisma, { email: member, password: PASSWORD, programId, role: "manager" })
        ).staffId;
        await prisma.$transaction((tx) =>
          applyUserBatch(tx, programId, [
            {
              email: `stale.${tag}@example.com`,
              feature: "user",
              payload: { firstName: "Ada", phone: "+34 600 000 000" },
            },
          ]),
        );
        ids.customer = (
          await prisma.customer.findFirstOrThrow({ where: { programId, email: `stale.${tag}@example.com` } })
        ).id;
        ids.tier = (
          await prisma.tier.findFirstOrThrow({ where: { programId }, orderBy: { requiredPoints: "desc" } })
        ).id;
        ids.apiKey = (await prisma.apiKey.findFirstOrThrow({ where: { programId, revokedAt: null } })).id;
        ids.webhook = (await createWebhook(prisma, { programId, url: "https://hooks.example.com/stale" })).webhookId;
      });
      app = await stack.start({
        AUTH_SECRET_FILE: path.join(os.tmpdir(), `loyalty-auth-secret-stale-${process.pid}-${backend}`),
      });
      ownerA = (await signIn(app.baseUrl, a, PASSWORD))!;
      ownerB = (await signIn(app.baseUrl, b, PASSWORD))!;
      assert.ok(ownerA && ownerB);
      const reward = await staffCall(app.baseUrl, ownerA, "POST", `/api/staff/${programId}/rewards`, {
        name: "Stale mug",
        costPoints: 100,
      });
      assert.equal(reward.status, 201, reward.text);
      ids.reward = String(reward.json!.rewardId);
      const pool = await staffCall(app.baseUrl, ownerA, "POST", `/api/staff/${programId}/coupon-pools`, {
        name: `Stale pool ${tag}`,
      });
      assert.equal(pool.status, 201, pool.text);
      ids.pool = String(pool.json!.couponPoolId);
      const flow = await staffCall(app.baseUrl, ownerA, "POST", `/api/staff/${programId}/earning-flows`, {
        key: `stale_${tag}`,
        points: 10,
      });
      assert.equal(flow.status, 201, flow.text);
      ids.flow = String(flow.json!.earningFlowId);
    });
    after(() => stack?.close());

    const CASES: EditCase[] = [
      {
        name: "customer user data",
        method: "PATCH",
        path: () => `/customers/${ids.customer}`,
        table: "Customer",
        id: () => ids.customer!,
        prime: { lastName: "Prime" },
        first: { phone: "+34 611 111 111" },
        second: { firstName: "Bea" },
        names: "phone",
      },
      {
        name: "customer preferences",
        method: "PATCH",
        path: () => `/customers/${ids.customer}/preferences`,
        table: "Customer",
        id: () => ids.customer!,
        prime: { tierNotifications: false },
        first: { language: "es" },
        second: { marketingNotifications: false },
        names: "language",
      },
      {
        name: "tier drawer",
        method: "PATCH",
        path: () => `/tiers/${ids.tier}`,
        table: "Tier",
        id: () => ids.tier!,
        prime: { content: "Prime" },
        first: { content: "Free shipping" },
        second: { factor: 2 },
        names: "content",
      },
      {
        name: "reward",
        method: "PATCH",
        path: () => `/rewards/${ids.reward}`,
        table: "Reward",
        id: () => ids.reward!,
        prime: { description: "Prime" },
        first: { costPoints: 150 },
        second: { name: "Stale cup" },
        names: "costPoints",
      },
      {
        name: "coupon pool",
        method: "PATCH",
        path: () => `/coupon-pools/${ids.pool}`,
        table: "CouponPool",
        id: () => ids.pool!,
        prime: { validDays: 10 },
        first: { validDays: 30 },
        second: { active: false },
        names: "validDays",
      },
      {
        name: "earning flow drawer",
        method: "PATCH",
        path: () => `/earning-flows/${ids.flow}`,
        table: "EarningFlow",
        id: () => ids.flow!,
        prime: { points: 15 },
        first: { points: 20 },
        second: { points: 30 },
        names: "points",
      },
      {
        name: "earning flow on/off",
        method: "PUT",
        path: () => `/earning-flows/${ids.flow}/active`,
        table: "EarningFlow",
        id: () => ids.flow!,
        prime: { active: false },
        first: { active: true },
        second: { active: false },
        names: "active",
      },
      {
        name: "API key limits",
        method: "PATCH",
        path: () => `/api-keys/${ids.apiKey}`,
        table: "ApiKey",
        id: () => ids.apiKey!,
        prime: { rateLimitPerSec: 15 },
        first: { rateLimitPerSec: 20 },
        second: { rateLimitPerSec: 30 },
        names: "rateLimitPerSec",
      },
      {
        name: "webhook event types",
        method: "PUT",
        path: () => `/webhooks/${ids.webhook}/events`,
        table: "Webhook",
        id: () => ids.webhook!,
        prime: { eventTypes: [] },
        first: { eventTypes: ["balance.changed"] },
        second: { eventTypes: ["tier.changed"] },
        names: "eventTypes",
      },
      {
        name: "webhook on/off",
        method: "PATCH",
        path: () => `/webhooks/${ids.webhook}`,
        table: "Webhook",
        id: () => ids.webhook!,
        prime: { active: false },
        first: { active: true },
        second: { active: false },
        names: "active",
      },
      {
        // The settings drawer sends only the changed settings (a partial body), with the program's version.
        name: "program settings, changed fields only",
        method: "PATCH",
        path: () => "/settings",
        table: "Program",
        id: () => programId,
        prime: { redemptionCancelHours: 1 },
        first: { redemptionCancelHours: 2 },
        second: { name: "Stale name" },
        names: "redemptionCancelHours",
      },
      {
        name: "referral settings, changed fields only",
        method: "PATCH",
        path: () => "/settings/referrals",
        table: "Program",
        id: () => programId,
        prime: { referralCapDays: 31 },
        first: { referralReferrerPoints: 7 },
        second: { referralCapDays: 40 },
        names: "referralReferrerPoints",
      },
      {
        name: "staff role",
        method: "PUT",
        path: () => `/staff/${ids.member}/role`,
        table: "StaffMembership",
        id: () => ids.member!,
        prime: { role: "viewer" },
        first: { role: "support" },
        second: { role: "viewer" },
        names: "role",
      },
    ];

    /** The row as the database has it, on PostgreSQL (PGlite is read only while the app is stopped): null there. */
    const rowOf = (table: string, id: string) => {
      const where = table === "StaffMembership" ? `"staffId" = $1::uuid AND "programId" = $2::uuid` : `id = $1::uuid`;
      const params = table === "StaffMembership" ? [id, programId] : [id];
      return stack
        .query(`SELECT to_jsonb(t) AS row FROM "${table}" t WHERE ${where}`, params)
        .then((rows) => JSON.stringify(rows))
        .catch(() => null);
    };

    for (const c of CASES) {
      test(`${c.name}: the second save from the old version is 409 stale_edit and changes nothing`, async () => {
        const url = `/api/staff/${programId}${c.path()}`;
        const save = (cookie: string, body: unknown, version?: unknown) =>
          staffCall(app.baseUrl, cookie, c.method, url, body, version ? { "if-match": `"${String(version)}"` } : {});
        // Both sessions open the page at this version (the answer of the save before).
        const primed = await save(ownerA, c.prime);
        assert.equal(primed.status, 200, primed.text);
        const opened = primed.json!.version;
        assert.equal(typeof opened, "string");

        const first = await save(ownerA, c.first, opened);
        assert.equal(first.status, 200, first.text);
        assert.notEqual(first.json!.version, opened, "a save moves the version on");
        const saved = await rowOf(c.table, c.id());

        const stale = await save(ownerB, c.second, opened);
        assert.equal(stale.status, 409, stale.text);
        assert.equal(stale.json!.code, "stale_edit");
        assert.match(String(stale.json!.detail), /reload/i);
        if (c.names) assert.match(String(stale.json!.detail), new RegExp(c.names));
        // Nothing changed: the row is as the first save left it (PostgreSQL), and its version has not moved (both).
        assert.equal(await rowOf(c.table, c.id()), saved, "the refused save changed nothing");
        const again = await save(ownerA, c.prime, first.json!.version);
        assert.equal(again.status, 200, `the version did not move: ${again.text}`);

        // After a reload (the current version), the second session's save is judged on its own merits.
        const reloaded = await save(ownerB, c.second, again.json!.version);
        assert.notEqual(reloaded.json?.code, "stale_edit", reloaded.text);
        assert.ok(reloaded.status < 500, reloaded.text);
      });
    }

    test("program settings and referral settings carry the program's version", async () => {
      const url = `/api/staff/${programId}/settings/referrals`;
      const body = {
        referralLinkTemplate: null,
        referralReferrerPoints: 10,
        referralReferredPoints: 5,
        referralMinEarnPoints: 1,
        referralCapCount: null,
        referralCapDays: 30,
      };
      const primed = await staffCall(app.baseUrl, ownerA, "PATCH", url, { ...body, referralReferrerPoints: 1 });
      assert.equal(primed.status, 200, primed.text);
      const opened = String(primed.json!.version);
      const first = await staffCall(app.baseUrl, ownerA, "PATCH", url, body, { "if-match": opened });
      assert.equal(first.status, 200, first.text);
      const saved = await rowOf("Program", programId);
      const stale = await staffCall(
        app.baseUrl,
        ownerB,
        "PATCH",
        url,
        { ...body, referralReferrerPoints: 99 },
        {
          "if-match": opened,
        },
      );
      assert.equal(stale.status, 409, stale.text);
      assert.equal(stale.json!.code, "stale_edit");
      assert.match(String(stale.json!.detail), /referralReferrerPoints/);
      assert.equal(await rowOf("Program", programId), saved);
    });

    test("a user-data save from the old version does not bring back the old phone", async () => {
      // The issue's own case: support saves a phone; a manager whose page shows the old one changes the first name.
      const url = `/api/staff/${programId}/customers/${ids.customer}`;
      const primed = await staffCall(app.baseUrl, ownerA, "PATCH", url, { lastName: "Opened" });
      const opened = String(primed.json!.version);
      const first = await staffCall(
        app.baseUrl,
        ownerA,
        "PATCH",
        url,
        { phone: "+34 622 222 222" },
        {
          "if-match": opened,
        },
      );
      assert.equal(first.status, 200, first.text);
      const stale = await staffCall(
        app.baseUrl,
        ownerB,
        "PATCH",
        url,
        { firstName: "Cleo", phone: "+34 611 111 111" },
        { "if-match": opened },
      );
      assert.equal(stale.status, 409);
      const read = await staffCall(
        app.baseUrl,
        ownerA,
        "PATCH",
        url,
        { lastName: "Read" },
        {
          "if-match": String(first.json!.version),
        },
      );
      assert.equal(read.status, 200, read.text);
      assert.equal(read.json!.phone, "+34 622 222 222");
      assert.notEqual(read.json!.firstName, "Cleo");
    });

    test("a duplicate tier name or earning-flow key is refused at its field (issue 28, item 4)", async () => {
      const tiers = await staffCall(app.baseUrl, ownerA, "POST", `/api/staff/${programId}/tiers`, {
        name: "Dup tier",
        requiredPoints: 123456,
        factor: 1,
      });
      assert.equal(tiers.status, 201, tiers.text);
      const dup = await staffCall(app.baseUrl, ownerA, "POST", `/api/staff/${programId}/tiers`, {
        name: "Dup tier",
        requiredPoints: 223456,
        factor: 1,
      });
      assert.equal(dup.status, 409, dup.text);
      assert.deepEqual(
        (dup.json!.errors as { path: string }[]).map((e) => e.path),
        ["name"],
      );
      const flow = await staffCall(app.baseUrl, ownerA, "POST", `/api/staff/${programId}/earning-flows`, {
        key: "dup_flow",
        points: 1,
      });
      assert.equal(flow.status, 201, flow.text);
      const dupFlow = await staffCall(app.baseUrl, ownerA, "POST", `/api/staff/${programId}/earning-flows`, {
        key: "dup_flow",
        points: 2,
      });
      assert.equal(dupFlow.status, 409, dupFlow.text);
      assert.deepEqual(
        (dupFlow.json!.errors as { path: string }[]).map((e) => e.path),
        ["key"],
      );
    });

    test("a malformed If-Match is a 400, and an edit without one is made as before", async () => {
      const url = `/api/staff/${programId}/tiers/${ids.tier}`;
      const bad = await staffCall(app.baseUrl, ownerA, "PATCH", url, { content: "x" }, { "if-match": "yesterday" });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.json!.code, "validation_failed");
      const none = await staffCall(app.baseUrl, ownerA, "PATCH", url, { content: "no version" });
      assert.equal(none.status, 200, none.text);
    });
  });
}
