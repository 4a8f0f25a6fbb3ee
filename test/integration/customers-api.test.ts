/**
 * The two endpoints the source spec fixes, over HTTP against the built app (API.md §1–2):
 *   POST /v1/programs/{programId}/integrations/api   Create/Update resources → 201, empty body
 *   GET  /v1/programs/{programId}/customers/{email}  Get customer details by email → 200 Customer
 * Every success and error path, on PGlite and (with TEST_DATABASE_URL) on PostgreSQL.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BACKENDS, openStack, type ApiOptions, type ApiResponse, type Fixtures, type Stack } from "../support/stack";
import { CUSTOMERS, LIMITED_BURST, LIMITED_RATE, HIGH_RATE_BURST, HIGH_RATE_LIMIT } from "../support/fixtures";
import {
  assertCustomerShape,
  assertProblem,
  assertRateHeaders,
  assertRequestId,
  assertTier,
  CUSTOMER_FIELDS,
  CUSTOMER_TIER_FIELDS,
  LOYALTY_DATA_FIELDS,
  problemPaths,
  TIER_FIELDS,
  USER_DATA_FIELDS,
} from "../support/assertions";

const MiB = 1024 * 1024;

for (const backend of BACKENDS) {
  describe(`Customers API: Create/Update resources and Get customer details [${backend}]`, () => {
    let app: Stack<Fixtures<typeof CUSTOMERS>>;
    before(async () => {
      app = await openStack(backend, CUSTOMERS, { start: true });
    });
    after(() => app?.close());

    const A = () => `/v1/programs/${app.programId}`;
    const B = () => `/v1/programs/${app.otherProgramId}`;
    /** Every response of the API carries x-request-id: checked on each call. */
    const call = async (method: string, path: string, options?: ApiOptions): Promise<ApiResponse> => {
      const res = await app.api(method, path, options);
      assertRequestId(res);
      return res;
    };
    const upsert = (items: unknown, options: Omit<ApiOptions, "body"> = {}) =>
      call("POST", `${A()}/integrations/api`, { ...options, body: items });
    const get = (email: string, options: ApiOptions = {}) =>
      call("GET", `${A()}/customers/${encodeURIComponent(email)}`, options);
    let seq = 0;
    /** A fresh e-mail for one test. */
    const fresh = (label: string) => `${label}.${++seq}@example.com`;
    const user = (email: string, payload: Record<string, unknown> = {}) => ({ email, feature: "user", payload });

    async function applied(items: unknown, options: Omit<ApiOptions, "body"> = {}): Promise<ApiResponse> {
      const res = await upsert(items, options);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.text, "", "201 has no body");
      return res;
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async function customer(email: string, options: ApiOptions = {}): Promise<any> {
      const res = await get(email, options);
      assert.equal(res.status, 200, res.text);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json\b/);
      assertCustomerShape(res.json);
      return res.json;
    }
    async function absent(email: string) {
      assertProblem(await get(email), 404, "customer_not_found");
    }

    describe("authentication and program isolation", () => {
      test("401 unauthorized without an api-key, or with an unknown, malformed or revoked one, on both endpoints", async () => {
        const email = fresh("auth");
        const keys: (string | null)[] = [
          null,
          `lk_live_${"0".repeat(32)}`,
          "not-a-key",
          app.revokedKey,
          app.key.slice(0, -1),
        ];
        for (const key of keys) {
          assertProblem(await upsert([user(email, { firstName: "X" })], { key }), 401, "unauthorized");
          assertProblem(await get(email, { key }), 401, "unauthorized");
        }
        for (const blank of ["", "   "])
          assertProblem(await get(email, { key: null, headers: { "api-key": blank } }), 401, "unauthorized");
        // The key is only accepted in the api-key header.
        assertProblem(
          await get(email, { key: null, headers: { authorization: `Bearer ${app.key}` } }),
          401,
          "unauthorized",
        );
        // Authentication comes before the program: no key on an unknown program is 401 too.
        assertProblem(
          await call("GET", `/v1/programs/00000000-0000-4000-8000-000000000000/customers/x%40y.io`, { key: null }),
          401,
          "unauthorized",
        );
        await absent(email); // none of the refused writes happened
      });

      test("another program's key on this program's path is 404 not_found, exactly like an unknown program, and writes nothing", async () => {
        const email = fresh("cross");
        const foreignPost = assertProblem(await upsert([user(email)], { key: app.otherKey }), 404, "not_found");
        const foreignGet = assertProblem(await get(email, { key: app.otherKey }), 404, "not_found");
        const unknownPost = assertProblem(
          await call("POST", `/v1/programs/00000000-0000-4000-8000-000000000000/integrations/api`, {
            body: [user(email)],
          }),
          404,
          "not_found",
        );
        const unknownGet = assertProblem(
          await call("GET", `/v1/programs/00000000-0000-4000-8000-000000000000/customers/${encodeURIComponent(email)}`),
          404,
          "not_found",
        );
        assertProblem(
          await call("GET", `/v1/programs/not-a-uuid/customers/${encodeURIComponent(email)}`),
          404,
          "not_found",
        );
        const strip = (p: { type: string; title: string; detail: string }) => ({
          type: p.type,
          title: p.title,
          detail: p.detail,
        });
        assert.deepEqual(
          strip(foreignPost),
          strip(unknownPost),
          "a foreign program is indistinguishable from an unknown one",
        );
        assert.deepEqual(strip(foreignGet), strip(unknownGet));
        await absent(email);
        assertProblem(
          await call("GET", `${B()}/customers/${encodeURIComponent(email)}`, { key: app.otherKey }),
          404,
          "customer_not_found",
        );
      });

      test("another program's customers are invisible, and the same e-mail is a separate customer in each program", async () => {
        const email = fresh("shared");
        const inB = await call("POST", `${B()}/integrations/api`, {
          key: app.otherKey,
          body: [user(email, { firstName: "InB", externalCustomerId: "ext-shared" })],
        });
        assert.equal(inB.status, 201, inB.text);
        await absent(email);

        await applied([user(email, { firstName: "InA", externalCustomerId: "ext-shared" })]); // externalCustomerId is unique per program only
        const a = await customer(email);
        const bRes = await call("GET", `${B()}/customers/${encodeURIComponent(email)}`, { key: app.otherKey });
        assert.equal(bRes.status, 200, bRes.text);
        const b = bRes.json;
        assertCustomerShape(b);
        assert.notEqual(a.id, b.id);
        assert.equal(a.programId, app.programId);
        assert.equal(b.programId, app.otherProgramId);
        assert.equal(a.userData.firstName, "InA");
        assert.equal(b.userData.firstName, "InB", "program A's write did not touch program B's customer");
        assert.equal(a.customerTier.currentTierId, app.tiers.bronze);
        assert.equal(
          b.customerTier.currentTierId,
          app.otherTierId,
          "each program's customers get that program's base tier",
        );
      });
    });

    describe("request body", () => {
      test("415 unsupported_media_type unless the body is sent as application/json", async () => {
        const email = fresh("ctype");
        const body = JSON.stringify([user(email, { firstName: "X" })]);
        for (const type of [
          "text/plain",
          "application/x-www-form-urlencoded",
          "application/json-patch+json",
          "multipart/form-data; boundary=x",
        ]) {
          assertProblem(await upsert(body, { headers: { "content-type": type } }), 415, "unsupported_media_type");
        }
        await absent(email);
        await applied(body, { headers: { "content-type": "application/json; charset=utf-8" } });
        await applied(body, { headers: { "content-type": "Application/JSON" } });
        assert.equal((await customer(email)).userData.firstName, "X");
      });

      test("413 payload_too_large above 1 MiB, with or without Content-Length; exactly 1 MiB is read", async () => {
        const email = fresh("big");
        const head = `[{"email":"${email}","feature":"user","payload":{"firstName":"`;
        const tail = `"}}]`;
        const ofSize = (bytes: number) => head + "x".repeat(bytes - head.length - tail.length) + tail;
        // At the limit the body is parsed and validated (firstName is too long), so the bound is exactly 1 MiB.
        const atLimit = assertProblem(await upsert(ofSize(MiB)), 400, "validation_failed");
        assert.deepEqual(problemPaths(atLimit), ["[0].payload.firstName"]);
        assertProblem(await upsert(ofSize(MiB + 1)), 413, "payload_too_large");

        // Chunked, no Content-Length: the size is enforced on the bytes actually read.
        const bytes = new TextEncoder().encode(ofSize(MiB + 1));
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
            controller.close();
          },
        });
        const res = await fetch(`${app.baseUrl}${A()}/integrations/api`, {
          method: "POST",
          headers: { "api-key": app.key, "content-type": "application/json" },
          body: stream,
          duplex: "half",
        } as RequestInit);
        const text = await res.text();
        assertProblem(
          { status: res.status, headers: res.headers, text, json: JSON.parse(text) },
          413,
          "payload_too_large",
        );
        await absent(email);
      });

      test("400 invalid_json when the body is not JSON", async () => {
        for (const body of ["[{", "", "{'email': 1}", "[1,]", "undefined"]) {
          const res = await upsert(body, { headers: { "content-type": "application/json" } });
          assertProblem(res, 400, "invalid_json");
        }
      });

      test("400 validation_failed unless the body is an array of 1 to 1,000 items", async () => {
        assertProblem(await upsert({ email: fresh("obj"), feature: "user", payload: {} }), 400, "validation_failed");
        assertProblem(await upsert(null), 400, "validation_failed");
        assertProblem(await upsert([]), 400, "validation_failed");
        const emails = Array.from({ length: 1001 }, (_, i) => fresh(`over${i}`));
        const tooMany = assertProblem(await upsert(emails.map((e) => user(e))), 400, "validation_failed");
        assert.equal(tooMany.errors.length, 1, JSON.stringify(tooMany.errors));
        assert.match(tooMany.errors[0].message, /1000|1,000/);
        await absent(emails[0]!);
        await absent(emails[1000]!);
      });

      test("a batch of 1,000 items is accepted and applied whole", async () => {
        const emails = Array.from({ length: 1000 }, (_, i) => fresh(`thousand${i}`));
        await applied(emails.map((e, i) => user(e, { firstName: `N${i}` })));
        for (const i of [0, 499, 999]) assert.equal((await customer(emails[i]!)).userData.firstName, `N${i}`);
      });

      test("400 validation_failed lists every problem of every item by JSON path, and nothing is written", async () => {
        const existing = fresh("keep");
        await applied([user(existing, { firstName: "Before", phone: "+1 555 0100" })]);
        const newcomer = fresh("newcomer");
        const res = await upsert([
          user(newcomer, { firstName: "Valid" }),
          user(existing, { firstName: "Changed", phone: "call me maybe" }),
          { email: "not-an-email", feature: "user", payload: { firstName: "x".repeat(256), emailVerified: "yes" } },
          { email: `${"a".repeat(250)}@x.io`, feature: "user", payload: { lastName: 5, email: "bad" } },
          { feature: "user", payload: {} },
          { email: fresh("nopayload"), feature: "user" },
        ]);
        const problem = assertProblem(res, 400, "validation_failed");
        assert.deepEqual(problemPaths(problem), [
          "[1].payload.phone",
          "[2].email",
          "[2].payload.emailVerified",
          "[2].payload.firstName",
          "[3].email",
          "[3].payload.email",
          "[3].payload.lastName",
          "[4].email",
          "[5].payload",
        ]);
        for (const e of problem.errors) assert.ok(e.message.length > 0);
        await absent(newcomer);
        const kept = await customer(existing);
        assert.equal(kept.userData.firstName, "Before");
        assert.equal(kept.userData.phone, "+1 555 0100");
      });

      test("unknown fields are rejected in the item and in the payload (no mass assignment)", async () => {
        const email = fresh("unknown");
        const cases: [unknown, string, RegExp][] = [
          [[user(email, { firstName: "X", balance: 100 })], "[0].payload", /balance/],
          [[user(email, { referral: "ABC" })], "[0].payload", /referral/],
          [[{ ...user(email), origin: "ADMIN" }], "[0]", /origin/],
        ];
        for (const [body, path, mentions] of cases) {
          const problem = assertProblem(await upsert(body), 400, "validation_failed");
          assert.deepEqual(problemPaths(problem), [path]);
          assert.match(problem.errors[0].message, mentions);
        }
        await absent(email);
      });

      test("a feature other than user is 400 unsupported_feature, and the batch is refused whole", async () => {
        const ok = fresh("okfeature");
        const points = assertProblem(
          await upsert([user(ok), { email: fresh("pts"), feature: "points", payload: {} }]),
          400,
          "unsupported_feature",
        );
        assert.deepEqual(problemPaths(points), ["[1].feature"]);
        await absent(ok);
        // With other problems as well, the batch is validation_failed and lists them all.
        const mixed = assertProblem(
          await upsert([{ email: "nope", feature: "coupon", payload: {} }]),
          400,
          "validation_failed",
        );
        assert.deepEqual(problemPaths(mixed), ["[0].email", "[0].feature"]);
        // A missing feature is a missing required field, not an unsupported one.
        const missing = assertProblem(
          await upsert([{ email: fresh("nofeature"), payload: {} }]),
          400,
          "validation_failed",
        );
        assert.deepEqual(problemPaths(missing), ["[0].feature"]);
      });

      test("strings are trimmed and at most 255 characters; the NUL character is refused", async () => {
        const email = fresh("strings");
        await applied([user(email, { firstName: `  ${"f".repeat(255)}  `, lastName: "  Lovelace " })]);
        const c = await customer(email);
        assert.equal(c.userData.firstName, "f".repeat(255));
        assert.equal(c.userData.lastName, "Lovelace");
        assert.deepEqual(
          problemPaths(
            assertProblem(await upsert([user(email, { lastName: "l".repeat(256) })]), 400, "validation_failed"),
          ),
          ["[0].payload.lastName"],
        );
        // PostgreSQL cannot store U+0000 or an unpaired surrogate: a 400, not a 500.
        assert.deepEqual(
          problemPaths(assertProblem(await upsert([user(email, { firstName: "A\u0000B" })]), 400, "validation_failed")),
          ["[0].payload.firstName"],
        );
        const lone = `[{"email":"${email}","feature":"user","payload":{"externalCustomerId":"A\\ud800B"}}]`;
        assert.deepEqual(problemPaths(assertProblem(await upsert(lone), 400, "validation_failed")), [
          "[0].payload.externalCustomerId",
        ]);
        assert.equal((await customer(email)).userData.lastName, "Lovelace");
      });
    });

    describe("create and update", () => {
      test("a create answers 201 with an empty body; the customer has every spec field, null when empty, ISO timestamps", async () => {
        const email = fresh("Create").toUpperCase();
        const res = await applied([
          user(email, {
            externalCustomerId: `ext-${email}`,
            firstName: "Ada",
            lastName: "Lovelace",
            phone: "+44 20 7946 0958",
            emailVerified: true,
          }),
        ]);
        assert.equal(res.headers.get("idempotent-replayed"), null);
        const started = Date.now();
        const c = await customer(email);
        assert.deepEqual(Object.keys(c).sort(), [...CUSTOMER_FIELDS].sort());
        assert.deepEqual(Object.keys(c.userData).sort(), [...USER_DATA_FIELDS].sort());
        assert.deepEqual(Object.keys(c.loyaltyData).sort(), [...LOYALTY_DATA_FIELDS].sort());
        assert.deepEqual(Object.keys(c.customerTier).sort(), [...CUSTOMER_TIER_FIELDS].sort());
        assert.deepEqual(Object.keys(c.customerTier.currentTier).sort(), [...TIER_FIELDS].sort());
        assert.equal(c.email, email.toLowerCase(), "stored in lower case");
        assert.equal(c.programId, app.programId);
        assert.equal(c.origin, "API");
        for (const f of ["referral", "utmCampaign", "utmSource", "utmMedium", "language"])
          assert.equal(c[f], null, `${f} is null, not omitted`);
        assert.equal(c.userData.birthdate, null);
        assert.equal(c.loyaltyData.referralLink, null);
        assert.deepEqual(
          {
            ext: c.userData.externalCustomerId,
            first: c.userData.firstName,
            last: c.userData.lastName,
            phone: c.userData.phone,
            verified: c.userData.emailVerified,
          },
          { ext: `ext-${email}`, first: "Ada", last: "Lovelace", phone: "+44 20 7946 0958", verified: true },
        );
        assert.equal(c.loyaltyData.balance, 0);
        assert.ok(c.loyaltyData.loyaltyCustomerId.length > 0);
        const created = Date.parse(c.createdAt);
        assert.ok(Math.abs(created - started) < 5 * 60_000, "createdAt is now");
        assert.ok(Math.abs(Date.parse(c.loyaltyData.memberSince) - created) < 5000, "memberSince is the creation time");
        assert.ok(Math.abs(Date.parse(c.userData.createdAt) - created) < 5000);
      });

      test("a new customer starts on the base tier (lowest requiredPoints) with tierStatus base and one period to run", async () => {
        const email = fresh("tier");
        await applied([user(email)]);
        const c = await customer(email);
        const t = c.customerTier;
        assert.equal(t.currentTierId, app.tiers.bronze, "Bronze (0 points) although Silver was created first");
        assertTier("currentTier", t.currentTier);
        assert.deepEqual(
          {
            name: t.currentTier.name,
            requiredPoints: t.currentTier.requiredPoints,
            factor: t.currentTier.factor,
            programId: t.currentTier.programId,
            content: t.currentTier.content,
            image: t.currentTier.image,
          },
          { name: "Bronze", requiredPoints: 0, factor: 1, programId: app.programId, content: null, image: null },
        );
        assert.equal(t.carryTierId, null);
        assert.equal(t.carryTier, null);
        assert.equal(t.currentTierPoints, 0);
        assert.equal(t.carryTierPoints, 0);
        assert.equal(c.loyaltyData.tierStatus, "base");
        const created = new Date(c.createdAt);
        assert.ok(
          Math.abs(Date.parse(t.tierChangedAt) - created.getTime()) < 5000,
          "tierChangedAt is the creation time",
        );
        const yearAhead = new Date(created);
        yearAhead.setUTCFullYear(yearAhead.getUTCFullYear() + 1);
        const drift = Math.abs(Date.parse(t.recalculationDate) - yearAhead.getTime());
        assert.ok(drift < 2 * 86_400_000, `recalculationDate ${t.recalculationDate} is one year after ${c.createdAt}`);
        // A minimal payload leaves every user field empty.
        assert.deepEqual(
          [
            c.userData.externalCustomerId,
            c.userData.firstName,
            c.userData.lastName,
            c.userData.phone,
            c.userData.emailVerified,
          ],
          [null, null, null, null, false],
        );
      });

      test("an update changes only the payload fields present", async () => {
        const email = fresh("update");
        await applied([
          user(email, {
            externalCustomerId: `ext-${email}`,
            firstName: "Ada",
            lastName: "Lovelace",
            phone: "+1 555 0101",
            emailVerified: true,
          }),
        ]);
        const before = await customer(email);
        await new Promise((r) => setTimeout(r, 5));
        await applied([user(email, { firstName: "Grace" })]);
        const after = await customer(email);
        assert.equal(after.id, before.id, "the same customer");
        assert.equal(after.createdAt, before.createdAt);
        assert.deepEqual(
          { ...after.userData, updatedAt: null },
          { ...before.userData, firstName: "Grace", updatedAt: null },
          "only firstName changed",
        );
        assert.ok(
          Date.parse(after.userData.updatedAt) > Date.parse(before.userData.updatedAt),
          "userData.updatedAt moves",
        );
        assert.deepEqual(after.loyaltyData, before.loyaltyData);
        assert.deepEqual(after.customerTier, before.customerTier);

        await applied([user(email, { emailVerified: false })]);
        const unverified = await customer(email);
        assert.deepEqual(
          { ...unverified.userData, updatedAt: null },
          { ...after.userData, emailVerified: false, updatedAt: null },
        );

        await applied([user(email, {})]);
        assert.deepEqual(
          { ...(await customer(email)).userData, updatedAt: null },
          { ...unverified.userData, updatedAt: null },
          "an empty payload changes nothing",
        );
      });

      test("null clears a string field and leaves the others; emailVerified cannot be null", async () => {
        const email = fresh("clear");
        await applied([
          user(email, {
            externalCustomerId: `ext-${email}`,
            firstName: "Ada",
            lastName: "Lovelace",
            phone: "+1 555 0102",
          }),
        ]);
        await applied([user(email, { phone: null, externalCustomerId: null })]);
        const c = await customer(email);
        assert.equal(c.userData.phone, null);
        assert.equal(c.userData.externalCustomerId, null);
        assert.equal(c.userData.firstName, "Ada");
        assert.equal(c.userData.lastName, "Lovelace");
        assert.deepEqual(
          problemPaths(assertProblem(await upsert([user(email, { emailVerified: null })]), 400, "validation_failed")),
          ["[0].payload.emailVerified"],
        );
      });

      test("utmSource, utmMedium, utmCampaign, language (BCP 47, canonical) and birthdate are set by the user payload", async () => {
        const seed = {
          utmSource: "newsletter",
          utmMedium: "email",
          utmCampaign: "spring-2026",
          language: "pt-br",
          birthdate: "1990-04-23",
        };
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const shown = (c: any) => ({
          utmSource: c.utmSource,
          utmMedium: c.utmMedium,
          utmCampaign: c.utmCampaign,
          language: c.language,
          birthdate: c.userData.birthdate,
        });
        // Created by the one-statement batch, then by the locked path (a rename in the batch takes it).
        const direct = fresh("seed");
        const [renamedFrom, renamed] = [fresh("seed-from"), fresh("seed-to")];
        await applied([user(direct, seed)]);
        await applied([user(renamedFrom, { ...seed, email: renamed })]);
        for (const email of [direct, renamed])
          assert.deepEqual(shown(await customer(email)), { ...seed, language: "pt-BR" }, email);

        // An update changes only what it names, on both paths; null clears.
        await applied([user(direct, { utmSource: "ads", language: null })]);
        await applied([user(renamed, { utmSource: "ads", language: null, email: renamedFrom })]);
        for (const email of [direct, renamedFrom])
          assert.deepEqual(
            shown(await customer(email)),
            { ...seed, utmSource: "ads", language: null },
            `${email}: only utmSource and language changed`,
          );
        await applied([user(direct, { birthdate: null, language: "ZH-hant-tw" })]);
        const c = await customer(direct);
        assert.equal(c.userData.birthdate, null);
        assert.equal(c.language, "zh-Hant-TW");

        // Refused by path, nothing written.
        const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
        const bad = await upsert([
          user(direct, { language: "not a tag", birthdate: tomorrow }),
          user(direct, { language: "e", birthdate: "1899-12-31" }),
          user(direct, { birthdate: "2001-02-29" }),
          user(direct, { birthdate: "23/04/1990", utmCampaign: "c".repeat(256) }),
        ]);
        assert.deepEqual(problemPaths(assertProblem(bad, 400, "validation_failed")), [
          "[0].payload.birthdate",
          "[0].payload.language",
          "[1].payload.birthdate",
          "[1].payload.language",
          "[2].payload.birthdate",
          "[3].payload.birthdate",
          "[3].payload.utmCampaign",
        ]);
        assert.deepEqual(await customer(direct), c);
      });

      test("items for one customer in one batch apply in order (later fields win)", async () => {
        const email = fresh("order");
        await applied([user(email, { firstName: "A", lastName: "L" }), user(email.toUpperCase(), { firstName: "B" })]);
        const c = await customer(email);
        assert.equal(c.userData.firstName, "B");
        assert.equal(c.userData.lastName, "L");
      });
    });

    describe("e-mails", () => {
      test("e-mails are trimmed and case-insensitive in the body and in the (URL-encoded) path", async () => {
        const email = fresh("Mixed.Case+Tag");
        const lower = email.toLowerCase();
        await applied([user(`  ${email.replace("example.com", "Example.COM")}  `, { firstName: "Mixed" })]);
        const c = await customer(lower);
        assert.equal(c.email, lower);
        for (const path of [
          encodeURIComponent(lower),
          encodeURIComponent(lower.toUpperCase()),
          lower,
          lower.replace("@", "%40"),
        ]) {
          const res = await call("GET", `${A()}/customers/${path}`);
          assert.equal(res.status, 200, `${path}: ${res.text}`);
          assert.equal(res.json.id, c.id, path);
        }
        await applied([user(lower.toUpperCase(), { lastName: "Upper" })]);
        const again = await customer(lower);
        assert.equal(again.id, c.id, "an upper-case e-mail in the body updates the same customer");
        assert.equal(again.userData.lastName, "Upper");
      });

      test("e-mails of the world: an internationalised domain or a UTF-8 local part, found by every spelling", async () => {
        const n = ++seq;
        // Each address as first written, its stored form, and other spellings that name the same customer.
        const forms = [
          {
            sent: `jose.${n}@bücher.de`,
            stored: `jose.${n}@xn--bcher-kva.de`,
            also: [`JOSE.${n}@BÜCHER.DE`, `jose.${n}@Bücher.de`, `jose.${n}@ｂüｃｈｅｒ.de`],
          },
          {
            sent: `jose.p${n}@xn--bcher-kva.de`,
            stored: `jose.p${n}@xn--bcher-kva.de`,
            also: [`jose.p${n}@bücher.de`, `Jose.P${n}@XN--BCHER-KVA.DE`],
          },
          {
            sent: `josé.${n}@example.com`,
            stored: `josé.${n}@example.com`,
            // Upper case, and the same é decomposed (e + U+0301): one address after NFC.
            also: [`JOSÉ.${n}@EXAMPLE.COM`, `jose\u0301.${n}@example.com`],
          },
          {
            sent: `用户${n}@例子.广告`,
            stored: `用户${n}@xn--fsqu00a.xn--4rr70v`,
            also: [`用户${n}@xn--fsqu00a.xn--4rr70v`],
          },
        ];
        await applied(forms.map((f, i) => user(f.sent, { firstName: `World${i}` })));
        const ids: string[] = [];
        for (const [i, f] of forms.entries()) {
          const c = await customer(f.sent);
          assert.equal(c.email, f.stored, "stored and answered in one form");
          assert.equal(c.userData.firstName, `World${i}`);
          ids.push(c.id);
          for (const spelling of [f.stored, ...f.also]) {
            const res = await get(spelling);
            assert.equal(res.status, 200, `${spelling}: ${res.text}`);
            assert.equal(res.json.id, c.id, spelling);
          }
        }
        assert.equal(new Set(ids).size, forms.length);
        // An update batch written with other spellings updates the same customers, creating none.
        await applied(forms.map((f, i) => user(f.also[0]!, { lastName: `Again${i}` })));
        for (const [i, f] of forms.entries()) {
          const c = await customer(f.also.at(-1)!);
          assert.equal(c.id, ids[i]);
          assert.equal(c.userData.lastName, `Again${i}`);
        }
        // A rename to an internationalised address, then a customer route (a write) on another spelling of it.
        await applied([user(forms[0]!.sent, { email: `renamed.${n}@bücher.de` })]);
        assert.equal((await customer(`renamed.${n}@xn--bcher-kva.de`)).id, ids[0]);
        const earned = await call(
          "POST",
          `${A()}/customers/${encodeURIComponent(`RENAMED.${n}@BÜCHER.DE`)}/balance/increase`,
          {
            body: { points: 5 },
          },
        );
        assert.equal(earned.status, 200, earned.text);
        assert.equal(earned.json.balance, 5);
        await absent(forms[0]!.sent);
      });

      test("e-mails that are not addresses by the rule are refused by path, and nothing is written", async () => {
        const n = ++seq;
        const bad = [
          `"quoted ${n}"@example.com`,
          `jo..se${n}@example.com`,
          `.jose${n}@example.com`,
          `jose${n}@bücher`, // no top-level domain
          `jose${n}@xn--zz.de`, // not punycode
          `jose${n}@-bücher.de`,
          `jose${n}@bücher.d3`,
          `jose${n}@127.0.0.1`,
          `${"é".repeat(33)}${n}@example.com`, // 66 bytes of UTF-8 in the local part
          `jo se${n}@example.com`,
          `jose${n}☃@example.com`, // a symbol, not a letter
        ];
        const good = `fine.${n}@bücher.de`;
        const res = await upsert([user(good), ...bad.map((email) => user(email))]);
        assertProblem(res, 400, "validation_failed");
        assert.deepEqual(problemPaths(res.json), bad.map((_, i) => `[${i + 1}].email`).sort());
        await absent(good);
      });

      test("a%2Bb%40x.com in the path is a+b@x.com", async () => {
        await applied([user("A+B@X.com", { firstName: "Plus" })]);
        const res = await call("GET", `${A()}/customers/a%2Bb%40x.com`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.email, "a+b@x.com");
        assert.equal(res.json.userData.firstName, "Plus");
      });

      test("404 customer_not_found for an unknown e-mail, or one that cannot exist; U+0000 is 400 by the text rule", async () => {
        await absent(fresh("nobody"));
        for (const path of [`${"x".repeat(300)}%40example.com`, "not-an-email", "%20"]) {
          assertProblem(await call("GET", `${A()}/customers/${path}`), 404, "customer_not_found");
        }
        const nul = assertProblem(await call("GET", `${A()}/customers/a%00b%40example.com`), 400, "validation_failed");
        assert.deepEqual(problemPaths(nul), ["email"]);
      });

      test("payload.email renames the customer", async () => {
        const from = fresh("rename-from");
        const to = fresh("rename-to");
        await applied([user(from, { firstName: "Renamed" })]);
        const before = await customer(from);
        await applied([user(from, { email: `  ${to.toUpperCase()} `, lastName: "After" })]);
        await absent(from);
        const after = await customer(to);
        assert.equal(after.id, before.id);
        assert.equal(after.email, to);
        assert.equal(after.userData.firstName, "Renamed");
        assert.equal(after.userData.lastName, "After", "the payload's other fields apply too");
        // The same e-mail in another case is not a rename.
        await applied([user(to, { email: to.toUpperCase() })]);
        assert.equal((await customer(to)).id, before.id);
      });

      test("later items of a batch see an earlier rename", async () => {
        const r1 = fresh("chain-1");
        const r2 = fresh("chain-2");
        await applied([user(r1, { firstName: "Chain" })]);
        const id = (await customer(r1)).id;
        await applied([user(r1, { email: r2 }), user(r2, { lastName: "Second" })]);
        const c = await customer(r2);
        assert.equal(c.id, id);
        assert.equal(c.userData.lastName, "Second");
        await absent(r1);
      });

      test("renaming to an e-mail that is taken is 409 conflict, and the whole batch is undone", async () => {
        const a = fresh("taken-a");
        const b = fresh("taken-b");
        const c = fresh("taken-c");
        await applied([user(a, { firstName: "A" }), user(b, { firstName: "B" })]);
        const problem = assertProblem(
          await upsert([user(c, { firstName: "C" }), user(a, { firstName: "A2", email: b.toUpperCase() })]),
          409,
          "conflict",
        );
        assert.deepEqual(problemPaths(problem), ["[1].payload.email"]);
        await absent(c);
        assert.equal((await customer(a)).userData.firstName, "A");
        assert.equal((await customer(b)).userData.firstName, "B");
      });
    });

    describe("externalCustomerId", () => {
      test("is unique within a program: a clash with another customer is 409 conflict and nothing is written", async () => {
        const owner = fresh("ext-owner");
        const other = fresh("ext-other");
        const bystander = fresh("ext-bystander");
        await applied([user(owner, { externalCustomerId: "EXT-1" }), user(other, { firstName: "Other" })]);
        const newcomer = assertProblem(
          await upsert([user(bystander), user(fresh("ext-new"), { externalCustomerId: "EXT-1" })]),
          409,
          "conflict",
        );
        assert.deepEqual(problemPaths(newcomer), ["[1].payload.externalCustomerId"]);
        await absent(bystander);
        const existing = assertProblem(
          await upsert([user(other, { externalCustomerId: "EXT-1", firstName: "Changed" })]),
          409,
          "conflict",
        );
        assert.deepEqual(problemPaths(existing), ["[0].payload.externalCustomerId"]);
        const o = await customer(other);
        assert.equal(o.userData.externalCustomerId, null);
        assert.equal(o.userData.firstName, "Other");
      });

      test("one id given to two customers in one batch is 409 conflict", async () => {
        const p = fresh("ext-p");
        const q = fresh("ext-q");
        const problem = assertProblem(
          await upsert([user(p, { externalCustomerId: "EXT-2" }), user(q, { externalCustomerId: "EXT-2" })]),
          409,
          "conflict",
        );
        assert.deepEqual(problemPaths(problem), ["[1].payload.externalCustomerId"]);
        await absent(p);
        await absent(q);
      });

      test("the owner may resend or release its id; once released another customer may take it", async () => {
        const x = fresh("ext-x");
        const y = fresh("ext-y");
        await applied([user(x, { externalCustomerId: "EXT-3" })]);
        await applied([user(x.toUpperCase(), { externalCustomerId: "EXT-3", firstName: "Same" })]);
        await applied([user(x, { externalCustomerId: null })]);
        await applied([user(y, { externalCustomerId: "EXT-3" })]);
        assert.equal((await customer(y)).userData.externalCustomerId, "EXT-3");
        assert.equal((await customer(x)).userData.externalCustomerId, null);
      });
    });

    describe("idempotency", () => {
      test("the same Idempotency-Key and body replays the stored outcome with idempotent-replayed: true and no second effect", async () => {
        const email = fresh("idem");
        const key = `idem-${backend}-replay`;
        const body = [user(email, { firstName: "First" })];
        const first = await applied(body, { headers: { "idempotency-key": key } });
        assert.equal(first.headers.get("idempotent-replayed"), null);
        await applied([user(email, { firstName: "Second" })]); // a later change, without a key
        const changed = await customer(email);

        const replay = await applied(body, { headers: { "idempotency-key": key } });
        assert.equal(replay.headers.get("idempotent-replayed"), "true");
        const after = await customer(email);
        assert.equal(after.userData.firstName, "Second", "the replay did not apply the body again");
        assert.equal(after.userData.updatedAt, changed.userData.updatedAt);
        assert.equal(after.updatedAt, changed.updatedAt);

        // Same key, different body: refused, nothing written.
        assertProblem(
          await upsert([user(email, { firstName: "Other" })], { headers: { "idempotency-key": key } }),
          409,
          "idempotency_conflict",
        );
        assert.equal((await customer(email)).userData.firstName, "Second");

        // Keys are per API key: another key of the same program with the same Idempotency-Key acts afresh.
        const fromSecond = await applied(body, { key: app.secondKey, headers: { "idempotency-key": key } });
        assert.equal(fromSecond.headers.get("idempotent-replayed"), null);
        assert.equal((await customer(email)).userData.firstName, "First");
      });

      test("a refused request does not use up its Idempotency-Key; keys longer than 255 characters are refused", async () => {
        const email = fresh("idem-refused");
        const key = `idem-${backend}-refused`;
        assertProblem(
          await upsert([user(email, { phone: "nope" })], { headers: { "idempotency-key": key } }),
          400,
          "validation_failed",
        );
        await applied([user(email, { phone: "+1 555 0103" })], { headers: { "idempotency-key": key } });
        assert.equal((await customer(email)).userData.phone, "+1 555 0103");

        const long = assertProblem(
          await upsert([user(email)], { headers: { "idempotency-key": "k".repeat(256) } }),
          400,
          "validation_failed",
        );
        assert.deepEqual(problemPaths(long), ["Idempotency-Key"]);
        await applied([user(email)], { headers: { "idempotency-key": "k".repeat(255) } });
      });
    });

    describe("headers and limits", () => {
      test("a well-formed incoming x-request-id is echoed, also on errors; anything else gets a fresh one", async () => {
        const ok = await call("GET", `${A()}/customers/${encodeURIComponent(fresh("rid"))}`, {
          headers: { "x-request-id": "trace-123.abc:9" },
        });
        assert.equal(ok.headers.get("x-request-id"), "trace-123.abc:9");
        assert.equal(assertProblem(ok, 404, "customer_not_found").requestId, "trace-123.abc:9");
        const unauth = await call("GET", `${A()}/customers/x%40y.io`, {
          key: null,
          headers: { "x-request-id": "trace-456" },
        });
        assert.equal(assertProblem(unauth, 401, "unauthorized").requestId, "trace-456");
        const bad = await call("GET", `${A()}/customers/x%40y.io`, {
          headers: { "x-request-id": "no spaces allowed" },
        });
        assert.notEqual(bad.headers.get("x-request-id"), "no spaces allowed");
        const ids = new Set<string>();
        for (let i = 0; i < 5; i++) ids.add(assertRequestId(await call("GET", `${A()}/customers/x%40y.io`)));
        assert.equal(ids.size, 5, "generated ids are unique");
      });

      test("authenticated responses carry RateLimit-Policy and RateLimit (IETF draft) and the three legacy headers, consistent", async () => {
        const email = fresh("ratelimit-headers");
        const responses = [
          await upsert([user(email)]),
          await get(email),
          await get(fresh("none")),
          await upsert([user("bad")]),
        ];
        assert.deepEqual(
          responses.map((r) => r.status),
          [201, 200, 404, 400],
        );
        for (const r of responses) assertRateHeaders(r, HIGH_RATE_BURST, Math.ceil(HIGH_RATE_BURST / HIGH_RATE_LIMIT));
      });

      test("a key past its burst gets 429 rate_limited with Retry-After, other keys are unaffected, and it recovers", async () => {
        const email = fresh("limited");
        await applied([user(email)]);
        const path = `${A()}/customers/${encodeURIComponent(email)}`;
        const started = Date.now();
        const statuses: number[] = [];
        let refused: ApiResponse | null = null;
        let lastRemaining = Infinity;
        for (let i = 0; i < LIMITED_BURST + 50 && !refused; i++) {
          const res = await call("GET", path, { key: app.limitedKey });
          statuses.push(res.status);
          const remaining = assertRateHeaders(res, LIMITED_BURST, Math.ceil(LIMITED_BURST / LIMITED_RATE));
          if (res.status === 429) refused = res;
          else {
            assert.equal(res.status, 200, res.text);
            if (i === 0) assert.equal(remaining, LIMITED_BURST - 1, "the bucket starts full");
            assert.ok(remaining <= lastRemaining + 1, "remaining only grows by the refill");
            lastRemaining = remaining;
          }
        }
        const seconds = (Date.now() - started) / 1000;
        assert.ok(refused, `no 429 after ${statuses.length} requests`);
        const allowed = statuses.length - 1;
        assert.ok(allowed >= LIMITED_BURST, `the whole burst of ${LIMITED_BURST} was allowed (got ${allowed})`);
        assert.ok(
          allowed <= LIMITED_BURST + Math.ceil(seconds * LIMITED_RATE) + 1,
          `${allowed} allowed in ${seconds} s is more than burst + refill`,
        );
        assertProblem(refused, 429, "rate_limited");
        const retryAfter = Number(refused.headers.get("retry-after"));
        assert.ok(
          Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= Math.ceil(1 / LIMITED_RATE),
          `Retry-After ${refused.headers.get("retry-after")}`,
        );
        assert.equal(refused.headers.get("ratelimit-remaining"), "0");
        assert.match(refused.headers.get("ratelimit-reset") ?? "", /^[1-9]\d*$/);

        assert.equal((await get(email)).status, 200, "another key of the program is not limited");
        await new Promise((r) => setTimeout(r, retryAfter * 1000 + 100));
        assert.equal(
          (await call("GET", path, { key: app.limitedKey })).status,
          200,
          "after Retry-After the key is served again",
        );
      });

      test("/v1/openapi.json is an OpenAPI 3.1 document with both operations and the Customer schema", async () => {
        const res = await call("GET", "/v1/openapi.json", { key: null });
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type") ?? "", /^application\/json\b/);
        const doc = res.json;
        assert.match(doc.openapi, /^3\.1\.\d+$/);
        const post = doc.paths["/v1/programs/{programId}/integrations/api"]?.post;
        const get = doc.paths["/v1/programs/{programId}/customers/{email}"]?.get;
        assert.ok(post, "POST /integrations/api is documented");
        assert.ok(get, "GET /customers/{email} is documented");
        assert.ok(post.responses["201"]);
        assert.ok(get.responses["200"]);
        for (const op of [post, get]) {
          const params = op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`);
          assert.ok(params.includes("path:programId"));
        }
        assert.ok(get.parameters.some((p: { name: string; in: string }) => p.in === "path" && p.name === "email"));
        const schemas = doc.components.schemas;
        for (const [name, fields] of Object.entries({
          Customer: CUSTOMER_FIELDS,
          UserData: USER_DATA_FIELDS,
          LoyaltyData: LOYALTY_DATA_FIELDS,
          CustomerTier: CUSTOMER_TIER_FIELDS,
          Tier: TIER_FIELDS,
        })) {
          assert.ok(schemas[name], `components.schemas.${name}`);
          assert.deepEqual(
            Object.keys(schemas[name].properties).sort(),
            [...fields].sort(),
            `${name} documents exactly the spec's fields`,
          );
          assert.deepEqual(
            [...schemas[name].required].sort(),
            [...fields].sort(),
            `${name}: every field is always present`,
          );
        }
        // The request body references the batch schema, whose items reject unknown fields.
        const text = JSON.stringify(post.requestBody);
        assert.match(text, /IntegrationBatch|IntegrationItem/);
      });
    });
  });
}
