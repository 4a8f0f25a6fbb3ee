import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { backends, client, createDatabase, startApp, withPrisma, type Database, type RunningApp } from "../helpers/app";
import { programWithTiers, revokedKey, uniqueEmail, type ProgramFixture } from "../helpers/fixtures";
import { createApiKey } from "@/lib/domain/api-keys";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const backend of backends) {
  describe(`Create/Update resources and Get customer [${backend}]`, () => {
    let database: Database;
    let app: RunningApp;
    let a: ProgramFixture;
    let b: ProgramFixture;
    let revoked: string;
    let limitedKey: string;
    let api: ReturnType<typeof client>;
    const base = () => `/v1/programs/${a.programId}`;
    const upsert = (items: unknown, opts: { key?: string | null; headers?: Record<string, string> } = {}) =>
      api("POST", `${base()}/integrations/api`, { body: items, ...opts });
    const get = (email: string) => api("GET", `${base()}/customers/${encodeURIComponent(email)}`);

    before(async () => {
      database = await createDatabase(backend);
      await withPrisma(database, async (prisma) => {
        a = await programWithTiers(prisma, "A");
        b = await programWithTiers(prisma, "B");
        revoked = await revokedKey(prisma, a.programId);
        limitedKey = (await createApiKey(prisma, { programId: a.programId, name: "limited", rateLimitPerSec: 1, rateLimitBurst: 3 })).key;
      });
      app = await startApp(database);
      api = client(app.baseUrl, a.key);
    });
    after(async () => {
      await app?.stop();
      await database?.drop();
    });

    test("creates a customer with every spec field, the base tier and a period ahead", async () => {
      const email = uniqueEmail("new");
      const created = await upsert([
        { email, feature: "user", payload: { externalCustomerId: `ext-${email}`, firstName: "Ada", lastName: "Lovelace", phone: "+44 20 7946 0958", emailVerified: true } },
      ]);
      assert.equal(created.status, 201);
      assert.equal(created.text, "");
      assert.ok(created.headers.get("x-request-id"));

      const res = await get(email);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      const c = res.body;
      const keys = ["id", "programId", "email", "origin", "referral", "utmCampaign", "utmSource", "utmMedium", "language", "balanceNotifications", "tierNotifications", "rewardAvailableNotifications", "locationNotifications", "marketingNotifications", "referralEarned", "createdAt", "updatedAt", "userData", "loyaltyData", "customerTier"];
      assert.deepEqual(Object.keys(c).sort(), [...keys].sort());
      assert.equal(c.programId, a.programId);
      assert.equal(c.email, email);
      assert.equal(c.origin, "API");
      assert.equal(c.referral, null);
      assert.match(c.createdAt, ISO);
      assert.deepEqual(
        Object.keys(c.userData).sort(),
        ["id", "customerId", "externalCustomerId", "firstName", "lastName", "phone", "birthdate", "emailVerified", "createdAt", "updatedAt"].sort(),
      );
      assert.equal(c.userData.customerId, c.id);
      assert.equal(c.userData.firstName, "Ada");
      assert.equal(c.userData.birthdate, null);
      assert.equal(c.userData.emailVerified, true);
      assert.equal(c.loyaltyData.balance, 0);
      assert.equal(c.loyaltyData.tierStatus, "base");
      assert.match(c.loyaltyData.memberSince, ISO);
      assert.equal(c.customerTier.currentTierId, a.tiers.bronze);
      assert.equal(c.customerTier.currentTier.name, "Bronze");
      assert.equal(c.customerTier.currentTier.requiredPoints, 0);
      assert.equal(c.customerTier.carryTier, null);
      assert.equal(c.customerTier.carryTierId, null);
      const ahead = Date.parse(c.customerTier.recalculationDate) - Date.parse(c.createdAt);
      assert.ok(ahead > 364 * 86400e3 && ahead < 367 * 86400e3, `recalculationDate one year ahead, got ${ahead} ms`);
    });

    test("updates only the fields present; null clears a field", async () => {
      const email = uniqueEmail("upd");
      assert.equal((await upsert([{ email, feature: "user", payload: { firstName: "Grace", lastName: "Hopper", phone: "+1 555 0100" } }])).status, 201);
      const before = (await get(email)).body;
      assert.equal((await upsert([{ email, feature: "user", payload: { lastName: "Murray", phone: null } }])).status, 201);
      const afterUpdate = (await get(email)).body;
      assert.equal(afterUpdate.id, before.id);
      assert.equal(afterUpdate.userData.firstName, "Grace");
      assert.equal(afterUpdate.userData.lastName, "Murray");
      assert.equal(afterUpdate.userData.phone, null);
      assert.equal(afterUpdate.loyaltyData.loyaltyCustomerId, before.loyaltyData.loyaltyCustomerId);
    });

    test("e-mails are trimmed and case-insensitive, in bodies and URL-encoded paths", async () => {
      const local = `Mixed+Case.${Date.now()}`;
      assert.equal((await upsert([{ email: `  ${local}@Example.COM `, feature: "user", payload: { firstName: "M" } }])).status, 201);
      const res = await api("GET", `${base()}/customers/${encodeURIComponent(`${local.toUpperCase()}@EXAMPLE.com`)}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.email, `${local.toLowerCase()}@example.com`);
      assert.equal((await upsert([{ email: `${local.toUpperCase()}@example.com`, feature: "user", payload: { lastName: "L" } }])).status, 201);
      const again = await get(`${local}@example.com`);
      assert.equal(again.body.id, res.body.id);
      assert.equal(again.body.userData.lastName, "L");
    });

    test("items for the same e-mail in one batch merge in order", async () => {
      const email = uniqueEmail("merge");
      const res = await upsert([
        { email, feature: "user", payload: { firstName: "One", lastName: "First" } },
        { email, feature: "user", payload: { firstName: "Two" } },
      ]);
      assert.equal(res.status, 201);
      const c = (await get(email)).body;
      assert.equal(c.userData.firstName, "Two");
      assert.equal(c.userData.lastName, "First");
    });

    test("payload.email renames; 409 conflict when the new e-mail is taken", async () => {
      const from = uniqueEmail("from");
      const to = uniqueEmail("to");
      const taken = uniqueEmail("taken");
      await upsert([{ email: from, feature: "user", payload: { firstName: "R" } }, { email: taken, feature: "user", payload: {} }]);
      const id = (await get(from)).body.id;
      assert.equal((await upsert([{ email: from, feature: "user", payload: { email: to } }])).status, 201);
      assert.equal((await get(from)).status, 404);
      assert.equal((await get(to)).body.id, id);

      const clash = await upsert([{ email: to, feature: "user", payload: { email: taken, firstName: "Changed" } }]);
      assert.equal(clash.status, 409);
      assert.equal(clash.body.code, "conflict");
      assert.equal(clash.body.errors[0].path, "[0].payload.email");
      assert.equal((await get(to)).body.userData.firstName, "R", "a rejected batch changes nothing");
    });

    test("externalCustomerId is unique within a program (409) but not across programs", async () => {
      const ext = `ext-${Date.now()}`;
      assert.equal((await upsert([{ email: uniqueEmail("x1"), feature: "user", payload: { externalCustomerId: ext } }])).status, 201);
      const other = uniqueEmail("x2");
      const clash = await upsert([{ email: other, feature: "user", payload: { externalCustomerId: ext } }]);
      assert.equal(clash.status, 409);
      assert.equal(clash.body.code, "conflict");
      assert.equal(clash.body.errors[0].path, "[0].payload.externalCustomerId");
      assert.equal((await get(other)).status, 404, "nothing written");
      const inB = await api("POST", `/v1/programs/${b.programId}/integrations/api`, {
        key: b.key,
        body: [{ email: other, feature: "user", payload: { externalCustomerId: ext } }],
      });
      assert.equal(inB.status, 201);
    });

    test("400 lists every problem with its path and writes nothing", async () => {
      const good = uniqueEmail("good");
      const res = await upsert([
        { email: good, feature: "user", payload: { firstName: "Ok" } },
        { email: "not-an-email", feature: "user", payload: { phone: "call me", nickname: "x" } },
        { email: uniqueEmail("c"), feature: "user" },
      ]);
      assert.equal(res.status, 400);
      assert.match(res.headers.get("content-type") ?? "", /^application\/problem\+json/);
      assert.equal(res.body.code, "validation_failed");
      assert.equal(res.body.status, 400);
      assert.ok(res.body.type && res.body.title && res.body.detail && res.body.requestId);
      assert.equal(res.body.requestId, res.headers.get("x-request-id"));
      const paths = res.body.errors.map((e: { path: string }) => e.path).sort();
      assert.deepEqual(paths, ["[1].email", "[1].payload", "[1].payload.phone", "[2].payload"].sort());
      assert.equal((await get(good)).status, 404, "the valid item was not written either");
    });

    test("unknown top-level fields and non-array bodies are rejected", async () => {
      const extra = await upsert([{ email: uniqueEmail("e"), feature: "user", payload: {}, admin: true }]);
      assert.equal(extra.status, 400);
      assert.equal(extra.body.errors[0].path, "[0]");
      const notArray = await upsert({ email: uniqueEmail("e"), feature: "user", payload: {} });
      assert.equal(notArray.status, 400);
      const empty = await upsert([]);
      assert.equal(empty.status, 400);
    });

    test("an unspecified feature is 400 unsupported_feature", async () => {
      const res = await upsert([{ email: uniqueEmail("f"), feature: "points", payload: {} }]);
      assert.equal(res.status, 400);
      assert.equal(res.body.code, "unsupported_feature");
      assert.equal(res.body.errors[0].path, "[0].feature");
    });

    test("a batch of 1,001 items is 400; 1,000 are applied atomically", async () => {
      const items = (n: number, tag: string) =>
        Array.from({ length: n }, (_, i) => ({ email: `${tag}.${i}@bulk.example`, feature: "user", payload: { firstName: `N${i}` } }));
      const tag = `b${Date.now()}`;
      const tooMany = await upsert(items(1001, tag));
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.body.code, "validation_failed");
      const ok = await upsert(items(1000, tag));
      assert.equal(ok.status, 201);
      assert.equal((await get(`${tag}.999@bulk.example`)).body.userData.firstName, "N999");
    });

    test("415 for a non-JSON body, 400 for malformed JSON, 413 above 1 MiB", async () => {
      const wrongType = await upsert("[]", { headers: { "content-type": "text/plain" } });
      assert.equal(wrongType.status, 415);
      assert.equal(wrongType.body.code, "unsupported_media_type");
      const malformed = await upsert("[{", {});
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.code, "invalid_json");
      const huge = await upsert(JSON.stringify([{ email: "a@b.co", feature: "user", payload: { firstName: "x".repeat(1024 * 1024) } }]));
      assert.equal(huge.status, 413);
      assert.equal(huge.body.code, "payload_too_large");
    });

    test("401 without a key, with an unknown key and with a revoked key", async () => {
      for (const key of [null, "lk_live_unknownunknownunknownunknown", revoked, "not even a key"]) {
        const res = await api("GET", `${base()}/customers/${encodeURIComponent("x@y.co")}`, { key });
        assert.equal(res.status, 401, `key ${key}`);
        assert.equal(res.body.code, "unauthorized");
        assert.ok(res.headers.get("x-request-id"));
      }
    });

    test("a key used on another program's path is 404, and never sees its customers", async () => {
      const email = uniqueEmail("iso");
      await api("POST", `/v1/programs/${b.programId}/integrations/api`, { key: b.key, body: [{ email, feature: "user", payload: {} }] });
      const cross = await api("GET", `/v1/programs/${b.programId}/customers/${encodeURIComponent(email)}`, { key: a.key });
      assert.equal(cross.status, 404);
      assert.equal(cross.body.code, "not_found");
      const nonexistent = await api("GET", `/v1/programs/00000000-0000-0000-0000-000000000000/customers/x%40y.co`, { key: a.key });
      assert.equal(nonexistent.status, 404);
      assert.equal(nonexistent.body.code, cross.body.code);
      assert.equal((await get(email)).status, 404, "B's customer is not in A");
      const write = await api("POST", `/v1/programs/${b.programId}/integrations/api`, { key: a.key, body: [{ email, feature: "user", payload: {} }] });
      assert.equal(write.status, 404);
    });

    test("404 customer_not_found for an unknown e-mail", async () => {
      const res = await get(uniqueEmail("nobody"));
      assert.equal(res.status, 404);
      assert.equal(res.body.code, "customer_not_found");
    });

    test("Idempotency-Key replays the first outcome and refuses a different body", async () => {
      const email = uniqueEmail("idem");
      const key = `k-${email}`;
      const first = await upsert([{ email, feature: "user", payload: { firstName: "Once" } }], { headers: { "Idempotency-Key": key } });
      assert.equal(first.status, 201);
      assert.equal(first.headers.get("idempotent-replayed"), null);
      await upsert([{ email, feature: "user", payload: { firstName: "Changed later" } }]);
      const replay = await upsert([{ email, feature: "user", payload: { firstName: "Once" } }], { headers: { "Idempotency-Key": key } });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.equal((await get(email)).body.userData.firstName, "Changed later", "the replay had no effect");
      const different = await upsert([{ email, feature: "user", payload: { firstName: "Other" } }], { headers: { "Idempotency-Key": key } });
      assert.equal(different.status, 409);
      assert.equal(different.body.code, "idempotency_conflict");
    });

    test("429 rate_limited with Retry-After once the burst is spent; RateLimit headers always", async () => {
      const statuses: number[] = [];
      let limited;
      for (let i = 0; i < 6; i++) {
        const res = await api("GET", `${base()}/customers/${encodeURIComponent("x@y.co")}`, { key: limitedKey });
        statuses.push(res.status);
        assert.ok(res.headers.get("ratelimit-limit"));
        assert.ok(res.headers.get("ratelimit-remaining") !== null);
        if (res.status === 429) limited = res;
      }
      assert.ok(statuses.slice(0, 3).every((s) => s === 404), `first three within the burst: ${statuses}`);
      assert.ok(limited, `a 429 after the burst: ${statuses}`);
      assert.equal(limited.body.code, "rate_limited");
      assert.ok(Number(limited.headers.get("retry-after")) >= 1);
    });

    test("/v1/openapi.json is OpenAPI 3.1 generated from the schemas", async () => {
      const res = await api("GET", "/v1/openapi.json", { key: null });
      assert.equal(res.status, 200);
      assert.equal(res.body.openapi, "3.1.0");
      assert.ok(res.body.paths["/v1/programs/{programId}/integrations/api"].post);
      assert.ok(res.body.paths["/v1/programs/{programId}/customers/{email}"].get);
      const customer = res.body.components.schemas.Customer;
      assert.ok(customer.properties.loyaltyData);
      assert.ok(res.body.components.schemas.UserPayload.additionalProperties === false);
    });
  });
}
