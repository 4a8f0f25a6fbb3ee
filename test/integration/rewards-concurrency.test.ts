/**
 * Redemptions and coupon assignments under concurrency, over HTTP against the built app: limited stock is never
 * oversold, a balance never overdrawn, a coupon code never given twice. PostgreSQL runs the requests truly at
 * once (the point of this file); PGlite serialises them, so there it checks the same outcomes without the race.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  BACKENDS,
  customerPath,
  openStack,
  type AppInstance,
  type ApiResponse,
  type Stack,
  type Fixtures,
} from "../support/stack";
import { newEmail, TWO_PROGRAMS } from "../support/fixtures";
import { assertProblem } from "../support/assertions";

const count = (results: ApiResponse[], status: number, code?: string) =>
  results.filter((r) => r.status === status && (code === undefined || r.json?.code === code)).length;

for (const backend of BACKENDS) {
  describe(`Redemptions and coupons under concurrency [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    const files = mkdtempSync(path.join(os.tmpdir(), "loyalty-race-"));
    const id = {} as Record<"limited" | "unlimited" | "pool", string>;
    const p = () => `/v1/programs/${stack.programId}`;
    const c = (email: string) => customerPath(stack.programId, email);

    async function customers(label: string, n: number, points: number): Promise<string[]> {
      const emails = Array.from({ length: n }, () => newEmail(label));
      assert.equal(
        (
          await app.api("POST", `${p()}/integrations/api`, {
            body: emails.map((email) => ({ email, feature: "user", payload: {} })),
          })
        ).status,
        201,
      );
      if (points > 0) {
        const credited = await Promise.all(
          emails.map((email) => app.api("POST", `${c(email)}/balance/increase`, { body: { points } })),
        );
        assert.ok(credited.every((r) => r.status === 200));
      }
      return emails;
    }

    before(async () => {
      stack = await openStack(backend, TWO_PROGRAMS);
      const A = stack.programId;
      id.limited = String(
        (
          await stack.loyalty(
            "reward",
            "create",
            "--program",
            A,
            "--name",
            "Limited",
            "--cost-points",
            "50",
            "--stock",
            "10",
          )
        ).rewardId,
      );
      id.unlimited = String(
        (await stack.loyalty("reward", "create", "--program", A, "--name", "Unlimited", "--cost-points", "40"))
          .rewardId,
      );
      id.pool = String(
        (await stack.loyalty("coupon-pool", "create", "--program", A, "--name", "Hundred")).couponPoolId,
      );
      const csv = path.join(files, "codes.csv");
      writeFileSync(csv, Array.from({ length: 100 }, (_, i) => `RACE-${String(i).padStart(3, "0")}`).join("\n"));
      assert.equal((await stack.loyalty("coupon-pool", "import", "--pool", id.pool, "--file", csv)).imported, 100);
      app = await stack.start();
    });
    after(async () => {
      await stack?.close();
      rmSync(files, { recursive: true, force: true });
    });

    test("50 parallel redemptions of a reward with stock 10: exactly 10 succeed, the rest reward_out_of_stock", async () => {
      const emails = await customers("stock", 25, 100); // each can afford two
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          app.api("POST", `${c(emails[i % 25]!)}/rewards/${id.limited}/redeem`, { body: {} }),
        ),
      );
      assert.equal(count(results, 201), 10, results.map((r) => r.status).join(","));
      assert.equal(count(results, 409, "reward_out_of_stock"), 40);
      for (const r of results.filter((x) => x.status === 409)) assertProblem(r, 409, "reward_out_of_stock");
      assert.equal(
        new Set(results.filter((r) => r.status === 201).map((r) => r.json.redemption.code)).size,
        10,
        "distinct codes",
      );
      const rewards = (await app.api("GET", `${p()}/rewards`)).json.data as { id: string; stock: number | null }[];
      assert.equal(rewards.find((r) => r.id === id.limited)?.stock, 0);
      const balances = await Promise.all(
        emails.map(async (email) => (await app.api("GET", c(email))).json.loyaltyData.balance as number),
      );
      assert.equal(
        balances.reduce((a, b) => a + b, 0),
        25 * 100 - 10 * 50,
        "exactly 10 × 50 points spent",
      );
      assert.ok(balances.every((b) => b >= 0));
    });

    test("20 parallel redemptions on one balance that covers 5: exactly 5 succeed, never overdrawn", async () => {
      const [email] = await customers("overdraw", 1, 200);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => app.api("POST", `${c(email!)}/rewards/${id.unlimited}/redeem`, { body: {} })),
      );
      assert.equal(count(results, 201), 5, results.map((r) => r.status).join(","));
      assert.equal(count(results, 409, "insufficient_balance"), 15);
      const balancesSeen = results
        .filter((r) => r.status === 201)
        .map((r) => r.json.balance as number)
        .sort((a, b) => a - b);
      assert.deepEqual(balancesSeen, [0, 40, 80, 120, 160], "each success saw the balance its predecessor left");
      assert.equal((await app.api("GET", c(email!))).json.loyaltyData.balance, 0);
      const history = (await app.api("GET", `${c(email!)}/transactions`)).json.data as {
        type: string;
        balanceAfter: number;
      }[];
      assert.deepEqual(
        history.map((e) => e.type),
        ["redeem", "redeem", "redeem", "redeem", "redeem", "earn"],
      );
      assert.ok(history.every((e) => e.balanceAfter >= 0));
    });

    test("200 parallel coupon assignments from a pool of 100: 100 distinct codes and 100 × coupon_pool_empty", async () => {
      const emails = await customers("coupon", 200, 0);
      const results = await Promise.all(
        emails.map((email) => app.api("POST", `${c(email)}/coupons`, { body: { couponPoolId: id.pool } })),
      );
      assert.equal(count(results, 201), 100);
      assert.equal(count(results, 409, "coupon_pool_empty"), 100);
      for (const r of results.filter((x) => x.status === 409)) assertProblem(r, 409, "coupon_pool_empty");
      const codes = results.filter((r) => r.status === 201).map((r) => r.json.coupon.code as string);
      assert.equal(new Set(codes).size, 100, "no code given twice");
      assert.ok(codes.every((code) => /^RACE-\d{3}$/.test(code)));
    });

    test("the database agrees: stock 0, 15 redemptions, balances = ledger, 100 coupons to 100 customers, events", async () => {
      await stack.stopAll();
      const [row] = await stack.query<Record<string, number>>(
        `SELECT (SELECT stock FROM "Reward" WHERE id = $2) AS stock,
                (SELECT count(*)::int FROM "Redemption" WHERE "programId" = $1) AS redemptions,
                (SELECT count(*)::int FROM "LoyaltyData" l
                   WHERE l.balance < 0 OR l.balance <> (SELECT coalesce(sum(points), 0) FROM "LedgerEntry" e WHERE e."customerId" = l."customerId")) AS broken,
                (SELECT count(*)::int FROM "Coupon" WHERE "poolId" = $3 AND "customerId" IS NOT NULL) AS assigned,
                (SELECT count(DISTINCT "customerId")::int FROM "Coupon" WHERE "poolId" = $3) AS holders,
                (SELECT count(*)::int FROM "Event" WHERE "programId" = $1 AND type = 'reward.redeemed') AS "redeemedEvents",
                (SELECT count(*)::int FROM "Event" WHERE "programId" = $1 AND type = 'coupon.assigned') AS "assignedEvents"`,
        [stack.programId, id.limited, id.pool],
      );
      assert.deepEqual(row, {
        stock: 0,
        redemptions: 15,
        broken: 0,
        assigned: 100,
        holders: 100,
        redeemedEvents: 15,
        assignedEvents: 100,
      });
    });
  });
}
