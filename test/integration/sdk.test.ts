/**
 * The typed client (sdk/) against the built app, on PGlite and (with TEST_DATABASE_URL) on PostgreSQL, as an
 * integrator would use it: customers, balances (and the typed 409), a reward, a coupon, an earning flow, the paged
 * history, the /me routes with a customer token, a 429 retried after Retry-After, and a POST whose answer was lost
 * retried with the same Idempotency-Key (acting once, the second answer a replay).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createCustomerClient, createLoyaltyClient, isLoyaltyApiError, type LoyaltyClient } from "@/sdk";
import { BACKENDS, openStack, type Fixtures, type Stack } from "../support/stack";
import { CUSTOMERS, newEmail } from "../support/fixtures";

const CUSTOMER = "/v1/programs/{programId}/customers/{email}";
const COUPON_CODES = ["SDK-ONE", "SDK-TWO"];
const REWARD_COST = 100;
const VISIT_POINTS = 10;

/** Program A's reward, coupon pool (with COUPON_CODES) and earning flow `visit`, made with the CLI before the app starts. */
async function makeCatalogue(stack: Stack<Fixtures<typeof CUSTOMERS>>) {
  const { loyalty, programId } = stack;
  const [reward, pool] = await stack.together(
    () => loyalty("reward", "create", "--program", programId, "--name", "Mug", "--cost-points", String(REWARD_COST)),
    () => loyalty("coupon-pool", "create", "--program", programId, "--name", "Welcome"),
    () => loyalty("earning-flow", "create", "--program", programId, "--key", "visit", "--points", String(VISIT_POINTS)),
  );
  const dir = mkdtempSync(path.join(os.tmpdir(), "loyalty-sdk-codes-"));
  try {
    writeFileSync(path.join(dir, "codes.csv"), COUPON_CODES.join("\n"));
    await loyalty("coupon-pool", "import", "--pool", String(pool!.couponPoolId), "--file", path.join(dir, "codes.csv"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { rewardId: String(reward!.rewardId), couponPoolId: String(pool!.couponPoolId) };
}

/** A fetch that records each attempt: its Idempotency-Key, when it was sent, and the answer's status and headers. */
function recordingFetch(drop?: (request: Request) => boolean) {
  const attempts: { key: string | null; sentAt: number; status?: number; headers?: Headers; answeredAt?: number }[] =
    [];
  const fetch = async (request: Request) => {
    const attempt: (typeof attempts)[number] = { key: request.headers.get("idempotency-key"), sentAt: Date.now() };
    attempts.push(attempt);
    const dropIt = drop?.(request) ?? false;
    const response = await globalThis.fetch(request);
    Object.assign(attempt, { status: response.status, headers: response.headers, answeredAt: Date.now() });
    if (dropIt) {
      await response.text(); // the server has acted; the answer never reaches the client
      throw new TypeError("fetch failed: the connection was reset");
    }
    return response;
  };
  return { fetch, attempts };
}

for (const backend of BACKENDS) {
  describe(`Typed client (sdk/) against the server [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof CUSTOMERS>>;
    let catalogue: { rewardId: string; couponPoolId: string };
    let loyalty: LoyaltyClient;
    const at = (email: string) => ({ params: { path: { programId: stack.programId, email } } });
    const balanceOf = async (email: string) => (await loyalty.GET(CUSTOMER, at(email))).loyaltyData.balance;
    /** A new customer made through the client, with `points` earned. */
    async function customer(label: string, points = 0) {
      const email = newEmail(label.toLowerCase());
      await loyalty.POST("/v1/programs/{programId}/integrations/api", {
        params: { path: { programId: stack.programId } },
        body: [{ email, feature: "user", payload: { firstName: label } }],
      });
      if (points > 0) await loyalty.POST(`${CUSTOMER}/balance/increase`, { ...at(email), body: { points } });
      return email;
    }

    before(async () => {
      stack = await openStack(backend, CUSTOMERS);
      catalogue = await makeCatalogue(stack);
      await stack.start();
      loyalty = createLoyaltyClient({ baseUrl: stack.baseUrl, apiKey: stack.key });
    });
    after(() => stack?.close());

    test("creates, updates and reads a customer by e-mail", async () => {
      const email = await customer("Ada");
      const created = await loyalty.GET(CUSTOMER, at(email.toUpperCase()));
      assert.deepEqual([created.email, created.userData.firstName, created.loyaltyData.balance], [email, "Ada", 0]);
      const none = await loyalty.POST("/v1/programs/{programId}/integrations/api", {
        params: { path: { programId: stack.programId } },
        body: [
          { email, feature: "user", payload: { firstName: "Ada", lastName: "Lovelace", phone: "+44 20 7946 0000" } },
        ],
      });
      assert.equal(none, undefined, "201 without a body");
      const updated = await loyalty.GET(CUSTOMER, at(email));
      assert.deepEqual(
        [updated.id, updated.userData.lastName, updated.userData.phone],
        [created.id, "Lovelace", "+44 20 7946 0000"],
      );
    });

    test("increases and decreases a balance; taking too much is a typed 409 insufficient_balance with the request id", async () => {
      const email = await customer("Bo");
      const up = await loyalty.POST(`${CUSTOMER}/balance/increase`, {
        ...at(email),
        body: { points: 250, reason: "order 1" },
      });
      assert.deepEqual([up.balance, up.transaction?.type, up.transaction?.points], [250, "earn", 250]);
      const down = await loyalty.POST(`${CUSTOMER}/balance/decrease`, { ...at(email), body: { points: 50 } });
      assert.deepEqual([down.balance, down.transaction?.points], [200, -50]);

      const err = await loyalty
        .POST(`${CUSTOMER}/balance/decrease`, { ...at(email), body: { points: 201 } })
        .catch((e: unknown) => e);
      assert.ok(isLoyaltyApiError(err, "decreaseBalance"), String(err));
      assert.equal(err.status, 409);
      assert.equal(err.code, "insufficient_balance");
      assert.match(err.requestId ?? "", /^[\w.:-]{1,128}$/);
      assert.equal(err.requestId, err.headers.get("x-request-id"));
      assert.equal(await balanceOf(email), 200, "nothing was taken");

      const unknown = await loyalty.GET(CUSTOMER, at(newEmail("nobody"))).catch((e: unknown) => e);
      assert.ok(isLoyaltyApiError(unknown, "getCustomerByEmail"));
      assert.deepEqual([unknown.status, unknown.code], [404, "customer_not_found"]);
    });

    test("redeems a reward, assigns a coupon and runs an earning flow", async () => {
      const email = await customer("Cy", 150);
      const redeemed = await loyalty.POST(`${CUSTOMER}/rewards/{rewardId}/redeem`, {
        params: { path: { programId: stack.programId, email, rewardId: catalogue.rewardId } },
        body: {},
      });
      assert.deepEqual([redeemed.balance, redeemed.redemption.points], [150 - REWARD_COST, REWARD_COST]);
      const coupon = await loyalty.POST(`${CUSTOMER}/coupons`, {
        ...at(email),
        body: { couponPoolId: catalogue.couponPoolId },
      });
      assert.ok(COUPON_CODES.includes(coupon.coupon.code), coupon.coupon.code);
      const run = await loyalty.POST(`${CUSTOMER}/earning-flows/{flowKey}`, {
        params: { path: { programId: stack.programId, email, flowKey: "visit" } },
        body: {},
      });
      assert.deepEqual(
        [run.pointsEarned, run.balance, run.capped],
        [VISIT_POINTS, 150 - REWARD_COST + VISIT_POINTS, null],
      );
    });

    test("transactions() pages through the whole ledger, newest first; the /me client sees the same", async () => {
      const email = await customer("Di");
      for (const points of [1, 2, 3, 4, 5])
        await loyalty.POST(`${CUSTOMER}/balance/increase`, { ...at(email), body: { points } });
      const all = await loyalty.GET(`${CUSTOMER}/transactions`, {
        params: { path: { programId: stack.programId, email }, query: { limit: 200 } },
      });
      assert.equal(all.nextCursor, null);
      const paged = [];
      for await (const entry of loyalty.transactions(stack.programId, email, { limit: 2 })) paged.push(entry);
      assert.deepEqual(
        paged.map((t) => t.points),
        [5, 4, 3, 2, 1],
      );
      assert.deepEqual(paged, all.data);

      const { token } = await loyalty.GET(`${CUSTOMER}/token`, at(email));
      const me = createCustomerClient({ baseUrl: stack.baseUrl, customerToken: token });
      assert.equal(
        (await me.GET("/v1/programs/{programId}/me", { params: { path: { programId: stack.programId } } })).email,
        email,
      );
      const mine = [];
      for await (const entry of me.transactions(stack.programId, { limit: 3 })) mine.push(entry);
      assert.deepEqual(mine, all.data);
    });

    test("a 429 is retried after its Retry-After, and the call succeeds", async () => {
      const { fetch, attempts } = recordingFetch();
      const limited = createLoyaltyClient({ baseUrl: stack.baseUrl, apiKey: stack.limitedKey, fetch });
      const tiers = { params: { path: { programId: stack.programId } } };
      // The key allows a burst of 10, then 1 request a second: the 11th is refused until a token is back.
      for (let i = 0; i < 11; i++)
        assert.equal((await limited.GET("/v1/programs/{programId}/tiers", tiers)).data.length, 3);
      const refused = attempts.findIndex((a) => a.status === 429);
      assert.ok(refused >= 0, `no 429 among ${attempts.map((a) => a.status).join(",")}`);
      const retryAfter = Number(attempts[refused]!.headers!.get("retry-after"));
      assert.ok(retryAfter >= 1, `Retry-After: ${retryAfter}`);
      const retry = attempts[refused + 1]!;
      assert.equal(retry.status, 200);
      assert.ok(retry.sentAt - attempts[refused]!.answeredAt! >= retryAfter * 1000 - 5, "waited Retry-After");
    });

    test("a POST whose answer is lost is retried with the same Idempotency-Key: it acts once, the retry is a replay", async () => {
      const email = await customer("Ed", 40);
      let dropped = false;
      const { fetch, attempts } = recordingFetch((request) => {
        if (dropped || request.method !== "POST") return false;
        return (dropped = true);
      });
      const flaky = createLoyaltyClient({ baseUrl: stack.baseUrl, apiKey: stack.key, fetch, baseDelayMs: 10 });
      const result = await flaky.POST(`${CUSTOMER}/balance/increase`, { ...at(email), body: { points: 7 } });
      assert.equal(attempts.length, 2);
      assert.deepEqual(
        attempts.map((a) => a.status),
        [200, 200],
      );
      assert.ok(attempts[0]!.key, "the client made an Idempotency-Key");
      assert.equal(attempts[1]!.key, attempts[0]!.key, "the retry carries the same key");
      assert.equal(attempts[0]!.headers!.get("idempotent-replayed"), null);
      assert.equal(attempts[1]!.headers!.get("idempotent-replayed"), "true");
      assert.equal(result.balance, 47);
      assert.equal(await balanceOf(email), 47, "the balance moved once");
    });
  });
}
