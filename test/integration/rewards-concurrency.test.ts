import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { client, createDatabase, startApp, withPrisma, type Database, type RunningApp } from "../helpers/app";
import { programWithTiers, uniqueEmail, type ProgramFixture } from "../helpers/fixtures";
import { createReward } from "@/lib/domain/rewards";
import { createCouponPool, importCoupons } from "@/lib/domain/coupons";

// Real parallelism needs a PostgreSQL server (PGlite runs one query at a time); CI always provides one.
const run = process.env.TEST_DATABASE_URL ? describe : describe.skip;

run("Redemptions and coupons under concurrency [postgres]", () => {
  let database: Database;
  let app: RunningApp;
  let a: ProgramFixture;
  let api: ReturnType<typeof client>;
  let rewardId: string;
  let poolId: string;
  const p = () => `/v1/programs/${a.programId}`;

  before(async () => {
    database = await createDatabase("postgres");
    await withPrisma(database, async (prisma) => {
      a = await programWithTiers(prisma);
      rewardId = (await createReward(prisma, { programId: a.programId, name: "Limited", costPoints: 50, stock: 10 })).rewardId;
      poolId = (await createCouponPool(prisma, { programId: a.programId, name: "Hundred" })).couponPoolId;
      await importCoupons(prisma, poolId, Array.from({ length: 100 }, (_, i) => `CODE-${i}`));
    });
    app = await startApp(database);
    api = client(app.baseUrl, a.key);
  });
  after(async () => {
    await app?.stop();
    await database?.drop();
  });

  test("50 parallel redemptions of a reward with stock 10: exactly 10, no overdraw", async () => {
    const emails = Array.from({ length: 25 }, () => uniqueEmail("r"));
    await api("POST", `${p()}/integrations/api`, { body: emails.map((email) => ({ email, feature: "user", payload: {} })) });
    // Each customer can afford two redemptions: 100 points.
    for (const email of emails) await api("POST", `${p()}/customers/${encodeURIComponent(email)}/balance/increase`, { body: { points: 100 } });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api("POST", `${p()}/customers/${encodeURIComponent(emails[i % 25]!)}/rewards/${rewardId}/redeem`, { body: {} }),
      ),
    );
    const ok = results.filter((r) => r.status === 201);
    assert.equal(ok.length, 10);
    assert.ok(results.filter((r) => r.status !== 201).every((r) => r.status === 409 && r.body.code === "reward_out_of_stock"));
    assert.equal(new Set(ok.map((r) => r.body.redemption.code)).size, 10);
    const { rows } = await database.sql!.query(
      `SELECT (SELECT stock FROM "Reward" WHERE id = $1) AS stock,
              (SELECT count(*)::int FROM "Redemption" WHERE "rewardId" = $1) AS redemptions,
              (SELECT count(*)::int FROM "LoyaltyData" l JOIN "Customer" c ON c.id = l."customerId"
                 WHERE c."programId" = $2 AND l.balance <> (SELECT coalesce(sum(points), 0) FROM "LedgerEntry" e WHERE e."customerId" = c.id)) AS broken,
              (SELECT coalesce(sum(-points), 0)::int FROM "LedgerEntry" WHERE "programId" = $2 AND type = 'redeem') AS spent`,
      [rewardId, a.programId],
    );
    assert.deepEqual(rows[0], { stock: 0, redemptions: 10, broken: 0, spent: 500 });
  });

  test("200 parallel coupon assignments from a pool of 100: 100 distinct codes, 100 × 409", async () => {
    const emails = Array.from({ length: 200 }, () => uniqueEmail("k"));
    await api("POST", `${p()}/integrations/api`, { body: emails.map((email) => ({ email, feature: "user", payload: {} })) });
    const results = await Promise.all(
      emails.map((email) => api("POST", `${p()}/customers/${encodeURIComponent(email)}/coupons`, { body: { couponPoolId: poolId } })),
    );
    const ok = results.filter((r) => r.status === 201);
    const empty = results.filter((r) => r.status === 409 && r.body.code === "coupon_pool_empty");
    assert.equal(ok.length, 100);
    assert.equal(empty.length, 100);
    assert.equal(new Set(ok.map((r) => r.body.coupon.code)).size, 100);
    const { rows } = await database.sql!.query(
      `SELECT count(*)::int AS assigned, count(DISTINCT "customerId")::int AS customers FROM "Coupon" WHERE "poolId" = $1 AND "customerId" IS NOT NULL`,
      [poolId],
    );
    assert.deepEqual(rows[0], { assigned: 100, customers: 100 });
  });
});
