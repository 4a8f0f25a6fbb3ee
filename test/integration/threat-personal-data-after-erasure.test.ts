/**
 * Threat: personal data of an erased customer survives `DELETE /v1/programs/{id}/integrations/api` (right to
 * erasure), in a table column or in a stored idempotent response that a replayed Idempotency-Key would return.
 *
 * Two customers go through everything an integrator and staff can do for a person (create and rename, increase and
 * decrease with reason and metadata, an earning flow with params, API, /me and staff redemptions with metadata,
 * coupons, notifications, staff edits and adjustments leaving audit rows, Idempotency-Keys that contain personal
 * data). One is erased. Then SQL over every text and JSON column of every table (listed from information_schema, so
 * a future table is covered too) must find none of the erased person's e-mails, names, phone, birthdate or external
 * id, and must still find the other customer's in the places they were stored (the scan can see them). The erased
 * customer's ledger keeps its types, points and times, so program totals still add up.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  BACKENDS,
  customerPath,
  openStack,
  type ApiOptions,
  type AppInstance,
  type Fixtures,
  type Stack,
} from "../support/stack";
import { newEmail, TWO_PROGRAMS } from "../support/fixtures";
import { putEventType } from "@/lib/domain/campaigns/store";
import { createCouponPool, importCoupons } from "@/lib/domain/coupons";
import { createEarningFlow } from "@/lib/domain/earning-flows";
import { createReward } from "@/lib/domain/rewards";
import { createStaff } from "@/lib/domain/staff";
import { setPushEndpoint } from "@/lib/domain/webhooks";
import { assertProblem } from "../support/assertions";
import { signIn, staffClient } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";

interface Person {
  email: string;
  oldEmail: string;
  firstName: string;
  lastName: string;
  phone: string;
  externalId: string;
  birthdate: string;
  id?: string;
}

function person(label: string, year: number): Person {
  const tag = randomBytes(4).toString("hex");
  return {
    email: newEmail(`${label}-now`),
    oldEmail: newEmail(`${label}-before`),
    firstName: `Zephyrine${tag}`,
    lastName: `Quillfeather${tag}`,
    phone: `+44 20 7946 ${randomInt(100_000, 1_000_000)}`,
    externalId: `CRM-${tag.toUpperCase()}`,
    birthdate: `${year}-0${1 + (parseInt(tag.slice(0, 2), 16) % 9)}-1${parseInt(tag.slice(2, 3), 16) % 10}`,
  };
}

const needles = (p: Person) =>
  [p.email, p.oldEmail, p.firstName, p.lastName, p.phone, p.externalId, p.birthdate].map((n) => n.toLowerCase());

/** Columns that hold the other customer's data after the journey: the scan must see it there. */
const STORED_IN = [
  "AuditLog.after",
  "AuditLog.before",
  "Customer.email",
  "CustomerEvent.attributes",
  "CustomerEvent.idempotencyKey",
  "CustomerEvent.orderId",
  "Event.data",
  "IdempotencyRecord.body",
  "IdempotencyRecord.key",
  "LedgerEntry.idempotencyKey",
  "LedgerEntry.metadata",
  "LedgerEntry.reason",
  "Notification.body",
  "Notification.data",
  "Notification.title",
  "Redemption.metadata",
  "UserData.birthdate",
  "UserData.externalCustomerId",
  "UserData.firstName",
  "UserData.lastName",
  "UserData.phone",
];

for (const backend of BACKENDS) {
  describe(`Threat: personal data left behind after erasure [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    const files = mkdtempSync(path.join(os.tmpdir(), "loyalty-erasure-"));
    const id = {} as Record<"program" | "key" | "reward" | "pool", string>;
    /** The program's API client: its key unless the call says otherwise. */
    const api = (method: string, pathname: string, options: ApiOptions = {}) =>
      app.api(method, pathname, { key: id.key, ...options });
    const staffEmail = newEmail("manager");
    const victim = person("victim", 1987);
    const control = person("control", 1991);
    // What the API showed of the victim's ledger before erasure: it must stay, minus the free text.
    let ledgerBefore: { type: string; points: number; createdAt: string }[] = [];
    const replays: { path: string; body: unknown; key: string }[] = [];

    const p = () => `/v1/programs/${id.program}`;
    const c = (email: string) => customerPath(id.program, email);

    before(async () => {
      // Domain-level fixtures in one process (cheaper than a CLI run per fixture), before the app opens the database.
      stack = await openStack(backend, TWO_PROGRAMS);
      Object.assign(id, { program: stack.programId, key: stack.key });
      await stack.withPrisma(async (prisma) => {
        id.reward = (await createReward(prisma, { programId: id.program, name: "Coffee", costPoints: 10 })).rewardId;
        id.pool = (await createCouponPool(prisma, { programId: id.program, name: "Erasure pool" })).couponPoolId;
        await importCoupons(
          prisma,
          id.pool,
          Array.from({ length: 8 }, (_, i) => `ER-${i}`),
        );
        await createEarningFlow(prisma, {
          programId: id.program,
          key: "purchase",
          pointsPerUnit: 1,
          param: "amount",
          params: [
            { name: "amount", max: 1000 },
            { name: "store", min: 1, max: 9999, required: false },
          ],
        });
        // A loopback push receiver needs the development setting, which the harness gives the app but not this process.
        process.env.LOYALTY_ALLOW_HTTP_WEBHOOKS = "1";
        await setPushEndpoint(prisma, { programId: id.program, url: "http://127.0.0.1:9/push" });
        await createStaff(prisma, { email: staffEmail, password: PASSWORD, programId: id.program, role: "manager" });
        // Customer events are kept in the event log with whatever the integrator sent about the person.
        await prisma.$transaction((tx) =>
          putEventType(tx, {
            programId: id.program,
            type: "contact",
            attributes: { name: { type: "string" }, reach: { type: "string" } },
            now: new Date(),
          }),
        );
      });
      app = await stack.start({ AUTH_SECRET_FILE: path.join(files, "auth-secret") });
    });
    after(async () => {
      await stack?.close();
      rmSync(files, { recursive: true, force: true });
    });

    /** Everything an integrator and a staff member can do for one person, each write carrying their data. */
    async function journey(who: Person, staff: ReturnType<typeof staffClient>) {
      const expect = async (res: Promise<{ status: number; text: string }>, status: number) => {
        const r = await res;
        assert.equal(r.status, status, r.text);
        return r;
      };
      const idem = (key: string) => ({ headers: { "Idempotency-Key": key } });
      const payload = {
        firstName: who.firstName,
        lastName: who.lastName,
        phone: who.phone,
        externalCustomerId: who.externalId,
      };
      await expect(
        api("POST", `${p()}/integrations/api`, { body: [{ email: who.oldEmail, feature: "user", payload }] }),
        201,
      );
      await expect(
        api("POST", `${p()}/integrations/api`, {
          body: [{ email: who.oldEmail, feature: "user", payload: { email: who.email } }],
        }),
        201,
      );
      who.id = (await api("GET", c(who.email))).json.id;

      const writes: { path: string; body: unknown; key: string; status: number }[] = [
        {
          path: `${c(who.email)}/balance/increase`,
          key: `inc-${who.externalId}`,
          status: 200,
          body: {
            points: 500,
            reason: `Welcome ${who.firstName} ${who.lastName}`,
            metadata: { email: who.email, phone: who.phone },
          },
        },
        {
          path: `${c(who.email)}/balance/decrease`,
          key: `dec-${who.email}`,
          status: 200,
          body: { points: 5, reason: `Refund to ${who.lastName}`, metadata: { born: who.birthdate } },
        },
        {
          path: `${c(who.email)}/earning-flows/purchase`,
          key: `flow-${who.externalId}`,
          status: 200,
          body: { params: { amount: 40, store: 12 } },
        },
        {
          path: `${c(who.email)}/rewards/${id.reward}/redeem`,
          key: `redeem-${who.phone}`,
          status: 201,
          body: { metadata: { deliverTo: `${who.firstName} ${who.lastName}`, crm: who.externalId } },
        },
        { path: `${c(who.email)}/coupons`, key: `coupon-${who.email}`, status: 201, body: { couponPoolId: id.pool } },
        {
          path: `${c(who.email)}/events`,
          key: `event-${who.lastName}`,
          status: 200,
          body: {
            type: "contact",
            orderId: `order-${who.externalId}`,
            attributes: { name: `${who.firstName} ${who.lastName}`, reach: who.phone },
          },
        },
        {
          path: `${c(who.email)}/notifications`,
          key: `note-${who.lastName}`,
          status: 202,
          body: {
            title: `Hi ${who.firstName}`,
            body: `Call ${who.phone}, ${who.lastName}`,
            category: "balance",
            data: { to: who.email },
          },
        },
      ];
      for (const w of writes) await expect(api("POST", w.path, { body: w.body, ...idem(w.key) }), w.status);
      const token = (await api("GET", `${c(who.email)}/token`)).json.token as string;
      await expect(
        api("POST", `${p()}/me/rewards/${id.reward}/redeem`, {
          key: null,
          headers: { Authorization: `Bearer ${token}`, "Idempotency-Key": `me-${who.email}` },
          body: { metadata: { note: who.phone } },
        }),
        201,
      );

      // Staff, through the dashboard's routes: each write leaves an audit row about the customer.
      const customer = `/customers/${who.id}`;
      for (const [method, route, body] of [
        ["PATCH", customer, { lastName: who.lastName, birthdate: who.birthdate, phone: who.phone }],
        ["POST", `${customer}/balance`, { points: 25, reason: `Goodwill for ${who.firstName} (${who.email})` }],
        ["POST", `${customer}/redeem`, { rewardId: id.reward, metadata: { for: who.email } }],
        [
          "POST",
          `${customer}/notifications`,
          {
            title: `Dear ${who.lastName}`,
            body: `Born ${who.birthdate}`,
            category: "tier",
            data: { crm: who.externalId },
          },
        ],
        ["POST", `${customer}/coupons`, { couponPoolId: id.pool }],
      ] as const) {
        const res = await staff(method, route, body);
        assert.ok(
          res.status >= 200 && res.status < 300,
          `${method} ${route}: ${res.status} ${JSON.stringify(res.json)}`,
        );
      }
      return writes;
    }

    test("a customer put through every write is erased; a replayed pre-erasure Idempotency-Key does not answer with their data", async () => {
      const cookie = await signIn(app.baseUrl, staffEmail, PASSWORD);
      assert.ok(cookie, "the manager signs in");
      const staff = staffClient(app.baseUrl, id.program, cookie);
      replays.push(...(await journey(victim, staff)));
      const controlWrites = await journey(control, staff);

      const history = await api("GET", `${c(victim.email)}/transactions?limit=200`);
      assert.equal(history.status, 200);
      ledgerBefore = history.json.data.map((e: { type: string; points: number; createdAt: string }) => ({
        type: e.type,
        points: e.points,
        createdAt: e.createdAt,
      }));
      assert.equal(ledgerBefore.length, 7, "increase, decrease, flow, three redemptions, staff adjustment");
      assert.ok(JSON.stringify(history.json).includes(victim.firstName), "the ledger held the free text before");

      const del = await api("DELETE", `${p()}/integrations/api`, { body: [{ email: victim.email, feature: "user" }] });
      assert.equal(del.status, 204, del.text);

      for (const w of replays) {
        const res = await api("POST", w.path, { body: w.body, headers: { "Idempotency-Key": w.key } });
        assert.equal(res.headers.get("idempotent-replayed"), null, `${w.path}: not a replay`);
        assertProblem(res, 404, "customer_not_found");
        for (const n of needles(victim)) assert.ok(!res.text.toLowerCase().includes(n), `${w.path} answered with ${n}`);
      }
      // The other customer's keys still replay their stored answers: the erasure removed only the victim's.
      const kept = controlWrites[0]!;
      const replay = await api("POST", kept.path, { body: kept.body, headers: { "Idempotency-Key": kept.key } });
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
    });

    test("SQL over every text and JSON column of every table finds none of the erased person's data; totals still add up", async () => {
      assert.ok(victim.id, "the first test ran");
      await stack.stopAll(); // PGlite: one process at a time
      const columns = await stack.query<{ table_name: string; column_name: string }>(
        `SELECT c.table_name, c.column_name FROM information_schema.columns c
           JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
         WHERE c.table_schema = 'public'
           AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED', 'bytea'))
         ORDER BY 1, 2`,
      );
      assert.ok(columns.length > 40, `only ${columns.length} columns`);
      const scan = columns
        .map(
          (col, i) =>
            `SELECT '${col.table_name}.${col.column_name}' AS col, n AS needle FROM "${col.table_name}" x, unnest($1::text[]) n
             WHERE strpos(lower(x."${col.column_name}"::text), n) > 0 /* ${i} */`,
        )
        .join("\nUNION\n");
      // One after the other: on PGlite each query opens the data directory.
      const found = await stack.query<{ col: string; needle: string }>(scan, [
        [...needles(victim), ...needles(control)],
      ]);
      const ledger = await stack.query<{
        type: string;
        points: number;
        createdAt: string;
        reason: string | null;
        metadata: unknown;
        idempotencyKey: string | null;
      }>(
        `SELECT type, points, to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt", reason, metadata, "idempotencyKey"
         FROM "LedgerEntry" WHERE "customerId" = $1 ORDER BY "createdAt" DESC, id DESC`,
        [victim.id],
      );
      const totals = await stack.query<{ ledger: number; balances: number }>(
        `SELECT (SELECT sum(points)::int FROM "LedgerEntry" WHERE "programId" = $1) AS ledger,
                (SELECT sum(l.balance)::int FROM "LoyaltyData" l JOIN "Customer" c ON c.id = l."customerId" WHERE c."programId" = $1) AS balances`,
        [id.program],
      );
      const leaks = found.filter((f) => needles(victim).includes(f.needle));
      assert.deepEqual(leaks, [], "the erased customer's data is still stored");
      const seen = [...new Set(found.filter((f) => needles(control).includes(f.needle)).map((f) => f.col))].sort();
      for (const col of STORED_IN)
        assert.ok(seen.includes(col), `the scan sees the other customer's data in ${col} (saw ${seen.join(", ")})`);

      // Types, points and times stay; the free text goes (a flow keeps its key, a redemption its reward).
      assert.deepEqual(
        ledger.map(({ type, points, createdAt }) => ({ type, points, createdAt })),
        ledgerBefore,
      );
      for (const e of ledger) {
        assert.equal(e.idempotencyKey, null);
        assert.ok(e.reason === null || e.type === "earn", `reason kept on ${e.type}: ${e.reason}`);
        if (e.metadata !== null)
          assert.ok(
            ["flowKey", "rewardId"].includes(Object.keys(e.metadata as object).join()),
            JSON.stringify(e.metadata),
          );
      }
      assert.equal(totals[0]!.ledger, totals[0]!.balances, "program totals still add up");
    });
  });
}
