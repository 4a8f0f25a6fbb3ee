/**
 * Cancel a redemption (POST /v1/programs/{programId}/redemptions/{redemptionId}/cancel, lib/domain/redemption-cancel.ts)
 * over HTTP against the built app: the points come back as a `reversal` entry (a new lot), stock comes back, the code is
 * void and stops counting towards the per-customer limit, once only (twice, replay, 20 at once), within the program's
 * window (turned off on program B; passed, through the CLI's clock), 404 for unknown, malformed, another program's or
 * an erased customer's redemption, and a cancel racing spends keeps the ledger invariant. PostgreSQL runs the
 * concurrent requests truly at once; PGlite serialises them and checks the same outcomes.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  BACKENDS,
  cliString,
  customerPath,
  openStack,
  type ApiResponse,
  type Fixtures,
  type Stack,
} from "../support/stack";
import { fixtures, newEmail, otherKey, otherProgram, programWithTiers, type FixturePart } from "../support/fixtures";
import { assertProblem, ISO_MS } from "../support/assertions";
import { WEBHOOK_EVENTS } from "@/lib/api/schemas/events";

const EXPIRY_MONTHS = 12;
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

/** Program A: a limited reward (100 points, stock 5), an unlimited one (40); program B: a reward, cancelling off. */
const cancelCatalogue = (): FixturePart<
  { programId: string; otherProgramId: string },
  { limited: string; unlimited: string; foreign: string }
> => ({
  key: `cancelCatalogue ${EXPIRY_MONTHS}`,
  async make({ loyalty, together }, { programId, otherProgramId }) {
    const reward = async (program: string, name: string, cost: number, ...extra: string[]) =>
      cliString(
        (
          await loyalty(
            "reward",
            "create",
            "--program",
            program,
            "--name",
            name,
            "--cost-points",
            String(cost),
            ...extra,
          )
        ).rewardId,
        "rewardId",
      );
    const [limited, unlimited, foreign] = await together(
      () => reward(programId, "Mug", 100, "--stock", "5"),
      () => reward(programId, "Coffee", 40),
      () => reward(otherProgramId, "B coffee", 10),
      () => loyalty("program", "update", "--id", programId, "--points-expiry-months", String(EXPIRY_MONTHS)),
      () => loyalty("program", "update", "--id", otherProgramId, "--redemption-cancel-hours", "0"),
    );
    return { limited, unlimited, foreign };
  },
});

const SPEC = fixtures("redemption-cancel", programWithTiers(), otherProgram()).then(otherKey(), cancelCatalogue());

for (const backend of BACKENDS) {
  describe(`Redemption cancel [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof SPEC>>;
    const v1 = (program = stack.programId) => `/v1/programs/${program}`;
    const c = (email: string, program = stack.programId) => customerPath(program, email);
    const cancelPath = (id: string, program = stack.programId) => `${v1(program)}/redemptions/${id}/cancel`;
    const cancel = (id: string, reason = "Order cancelled", options: { key?: string; headers?: object } = {}) =>
      stack.api("POST", cancelPath(id), { body: { reason }, ...options } as never);

    async function customerWith(points: number, key?: string, program?: string): Promise<string> {
      const email = newEmail("cancel");
      const made = await stack.api("POST", `${v1(program)}/integrations/api`, {
        key,
        body: [{ email, feature: "user", payload: {} }],
      });
      assert.equal(made.status, 201, made.text);
      const earned = await stack.api("POST", `${c(email, program)}/balance/increase`, { key, body: { points } });
      assert.equal(earned.status, 200, earned.text);
      return email;
    }
    async function redeem(email: string, rewardId: string, key?: string, program?: string) {
      const res = await stack.api("POST", `${c(email, program)}/rewards/${rewardId}/redeem`, { key, body: {} });
      assert.equal(res.status, 201, res.text);
      return res.json.redemption as { id: string; code: string; points: number; transactionId: string };
    }
    const customer = async (email: string) => (await stack.api("GET", c(email))).json;
    const stockOf = async (rewardId: string) =>
      ((await stack.api("GET", `${v1()}/rewards`)).json.data as { id: string; stock: number | null }[]).find(
        (r) => r.id === rewardId,
      )?.stock;
    const history = async (email: string) =>
      (await stack.api("GET", `${c(email)}/transactions`)).json.data as {
        id: string;
        type: string;
        points: number;
        metadata: Record<string, unknown> | null;
      }[];
    /** What a refused cancel must leave as it was. */
    const snapshot = async (email: string, rewardId: string) => ({
      balance: (await customer(email)).loyaltyData.balance,
      ledger: (await history(email)).map((e) => e.id),
      stock: await stockOf(rewardId),
    });

    before(async () => {
      stack = await openStack(backend, SPEC);
      // The unlimited reward may be redeemed once per customer (no CLI flag for it: set here, before the app starts).
      await stack.query(`UPDATE "Reward" SET "perCustomerLimit" = 1 WHERE id = $1::uuid`, [stack.unlimited]);
      await stack.start();
    });
    after(() => stack?.close());

    test("the points come back as a reversal into the lots they came from, stock comes back, the code is void; tier points stay", async () => {
      const email = await customerWith(300);
      const stockBefore = await stockOf(stack.limited);
      const redeemed = await redeem(email, stack.limited);
      assert.equal(await stockOf(stack.limited), stockBefore! - 1);
      const tierPoints = (await customer(email)).customerTier.currentTierPoints;

      const res = await cancel(redeemed.id, "Order #1042 cancelled at the till");
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json).sort(), ["balance", "expiredPoints", "redemption", "transaction"]);
      const { redemption, balance, transaction, expiredPoints } = res.json;
      // Nothing had expired: every point is spendable again (pending-expiry.test.ts covers lots expired since).
      assert.equal(expiredPoints, 0);
      assert.equal(balance, 300);
      assert.equal(redemption.id, redeemed.id);
      assert.equal(redemption.code, redeemed.code);
      assert.equal(redemption.status, "cancelled");
      assert.match(redemption.cancelledAt, ISO_MS);
      assert.equal(redemption.cancelReason, "Order #1042 cancelled at the till");
      assert.equal(redemption.transactionId, redeemed.transactionId);
      assert.equal(transaction.type, "reversal");
      assert.equal(transaction.points, 100);
      assert.equal(transaction.balanceAfter, 300);
      assert.equal(transaction.source, "api");
      assert.equal(transaction.reason, "redemption cancelled: Order #1042 cancelled at the till");
      assert.deepEqual(transaction.metadata, { redemptionId: redeemed.id, reverses: redeemed.transactionId });
      // The reversal's own expiry is that of points added now (12 months from the cancel); its points went back
      // into the earn's lot, which keeps the earn's expiry (checked where it matters, in pending-expiry.test.ts).
      const months = (new Date(transaction.expiresAt).getTime() - new Date(transaction.createdAt).getTime()) / 86400e3;
      assert.ok(months >= 365 && months <= 366, `expires ${transaction.expiresAt} after ${transaction.createdAt}`);

      assert.equal((await customer(email)).loyaltyData.balance, 300);
      assert.equal((await customer(email)).customerTier.currentTierPoints, tierPoints, "tier points unchanged");
      assert.equal(await stockOf(stack.limited), stockBefore);
      assert.deepEqual(
        (await history(email)).map((e) => `${e.type} ${e.points}`),
        ["reversal 100", "redeem -100", "earn 300"],
      );
      // The balance can be spent again in full: the points are back in their lot.
      const spent = await stack.api("POST", `${c(email)}/balance/decrease`, { body: { points: 300 } });
      assert.equal(spent.status, 200, spent.text);
      assert.equal(spent.json.balance, 0);
    });

    test("a cancelled redemption no longer counts towards the reward's per-customer limit", async () => {
      const email = await customerWith(100);
      const first = await redeem(email, stack.unlimited);
      assertProblem(
        await stack.api("POST", `${c(email)}/rewards/${stack.unlimited}/redeem`, { body: {} }),
        409,
        "reward_limit_reached",
      );
      assert.equal((await cancel(first.id)).status, 200);
      const again = await redeem(email, stack.unlimited);
      assert.notEqual(again.code, first.code);
      assert.equal((await customer(email)).loyaltyData.balance, 60);
    });

    test("cancelling twice is 409 redemption_already_cancelled and changes nothing", async () => {
      const email = await customerWith(200);
      const redeemed = await redeem(email, stack.limited);
      assert.equal((await cancel(redeemed.id)).status, 200);
      const before = await snapshot(email, stack.limited);
      assertProblem(await cancel(redeemed.id, "again"), 409, "redemption_already_cancelled");
      assert.deepEqual(await snapshot(email, stack.limited), before);
    });

    test("with the same Idempotency-Key a retry replays the cancel; another body under the key is a conflict", async () => {
      const email = await customerWith(200);
      const redeemed = await redeem(email, stack.limited);
      const key = `cancel-${redeemed.id}`;
      const first = await cancel(redeemed.id, "Order cancelled", { headers: { "idempotency-key": key } });
      assert.equal(first.status, 200, first.text);
      const replay = await cancel(redeemed.id, "Order cancelled", { headers: { "idempotency-key": key } });
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.equal(replay.text, first.text);
      assert.equal(first.json.transaction.idempotencyKey, key);
      assertProblem(
        await cancel(redeemed.id, "Another reason", { headers: { "idempotency-key": key } }),
        409,
        "idempotency_conflict",
      );
      assert.equal((await customer(email)).loyaltyData.balance, 200, "the points came back once");
    });

    test("where the program turned cancelling off: 409 cancel_window_closed, nothing changed", async () => {
      const B = stack.otherProgramId;
      const email = await customerWith(50, stack.otherKey, B);
      const redeemed = await redeem(email, stack.foreign, stack.otherKey, B);
      const res = await stack.api("POST", cancelPath(redeemed.id, B), {
        key: stack.otherKey,
        body: { reason: "Order cancelled" },
      });
      assertProblem(res, 409, "cancel_window_closed");
      assert.match(res.json.detail, /does not allow cancelling/);
      assert.equal((await stack.api("GET", c(email, B), { key: stack.otherKey })).json.loyaltyData.balance, 40);
    });

    test("unknown, malformed and another program's redemptions are 404; the body is validated by path", async () => {
      const email = await customerWith(200);
      const redeemed = await redeem(email, stack.limited);
      const before = await snapshot(email, stack.limited);
      assertProblem(await cancel(UNKNOWN_ID), 404, "redemption_not_found");
      assertProblem(await cancel("not-a-uuid"), 404, "redemption_not_found");
      // Program B's key on program A's path: the program is not the key's.
      assertProblem(await cancel(redeemed.id, "x", { key: stack.otherKey }), 404, "not_found");
      // Program B's key on its own path with A's redemption: no such redemption in B.
      const B = stack.otherProgramId;
      assertProblem(
        await stack.api("POST", cancelPath(redeemed.id, B), { key: stack.otherKey, body: { reason: "x" } }),
        404,
        "redemption_not_found",
      );
      for (const body of [{}, { reason: "" }, { reason: "   " }, { reason: "x".repeat(256) }, { reason: 5 }]) {
        const res: ApiResponse = await stack.api("POST", cancelPath(redeemed.id), { body });
        const problem = assertProblem(res, 400, "validation_failed");
        assert.deepEqual(
          (problem.errors as { path: string }[]).map((e) => e.path),
          ["reason"],
        );
      }
      assertProblem(
        await stack.api("POST", cancelPath(redeemed.id), { body: { reason: "x", points: 5 } }),
        400,
        "validation_failed",
      );
      assert.deepEqual(await snapshot(email, stack.limited), before);
    });

    test("a redemption of an erased customer is 404 redemption_not_found", async () => {
      const email = await customerWith(200);
      const redeemed = await redeem(email, stack.limited);
      const stock = await stockOf(stack.limited);
      const erased = await stack.api("DELETE", `${v1()}/integrations/api`, { body: [{ email, feature: "user" }] });
      assert.equal(erased.status, 204, erased.text);
      assertProblem(await cancel(redeemed.id), 404, "redemption_not_found");
      assert.equal(await stockOf(stack.limited), stock);
    });

    test("20 cancels of one redemption at once: one effect, 19 × redemption_already_cancelled", async () => {
      const email = await customerWith(500);
      const redeemed = await redeem(email, stack.limited);
      const stock = await stockOf(stack.limited);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => cancel(redeemed.id, `attempt ${i}`)));
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(","));
      for (const r of results.filter((x) => x.status !== 200)) assertProblem(r, 409, "redemption_already_cancelled");
      assert.equal((await customer(email)).loyaltyData.balance, 500);
      assert.equal(await stockOf(stack.limited), stock! + 1);
      assert.equal((await history(email)).filter((e) => e.type === "reversal").length, 1);
    });

    test("a cancel racing spends of the same customer: every change applies once, never below zero", async () => {
      const email = await customerWith(100);
      const redeemed = await redeem(email, stack.limited); // balance 0
      const tasks = [
        () => cancel(redeemed.id),
        ...Array.from(
          { length: 10 },
          () => () => stack.api("POST", `${c(email)}/balance/decrease`, { body: { points: 30 } }),
        ),
      ];
      const results = await Promise.all(tasks.map((t) => t()));
      assert.equal(results[0]!.status, 200, results[0]!.text);
      const spends = results.slice(1);
      const ok = spends.filter((r) => r.status === 200).length;
      for (const r of spends.filter((x) => x.status !== 200)) assertProblem(r, 409, "insufficient_balance");
      assert.ok(ok <= 3, `${ok} spends of 30 out of 100 points`);
      assert.equal((await customer(email)).loyaltyData.balance, 100 - 30 * ok);
    });

    test("the ledger invariant holds, events were written, and a passed window is closed (CLI clock)", async () => {
      // A redemption for the CLI (PGlite: the CLI and SQL only while no app runs).
      const email = await customerWith(150);
      const redeemed = await redeem(email, stack.unlimited);
      await stack.stopAll();
      const broken = await stack.query<{ customerId: string }>(
        `SELECT l."customerId" FROM "LoyaltyData" l
         WHERE l."programId" = $1::uuid AND (
           l.balance <> (SELECT coalesce(sum(points), 0) FROM "LedgerEntry" e WHERE e."customerId" = l."customerId")
           OR l.balance <> (SELECT coalesce(sum(remaining), 0) FROM "PointLot" o WHERE o."customerId" = l."customerId")
           OR l.balance < 0)`,
        [stack.programId],
      );
      assert.deepEqual(broken, [], "balance = sum(entries) = sum(lots) ≥ 0 for every customer");
      const [counts] = await stack.query<{ cancelled: number; reversals: number; events: number; linked: number }>(
        `SELECT (SELECT count(*)::int FROM "Redemption" WHERE "programId" = $1::uuid AND "cancelledAt" IS NOT NULL) AS cancelled,
                (SELECT count(*)::int FROM "LedgerEntry" WHERE "programId" = $1::uuid AND type = 'reversal') AS reversals,
                (SELECT count(*)::int FROM "Event" WHERE "programId" = $1::uuid AND type = 'redemption.cancelled') AS events,
                (SELECT count(*)::int FROM "Redemption" r JOIN "LedgerEntry" e ON e.id = r."cancelLedgerEntryId"
                  WHERE r."programId" = $1::uuid AND e.metadata->>'redemptionId' = r.id::text) AS linked`,
        [stack.programId],
      );
      assert.ok(counts!.cancelled >= 6, JSON.stringify(counts));
      assert.equal(counts!.reversals, counts!.cancelled);
      assert.equal(counts!.events, counts!.cancelled);
      assert.equal(counts!.linked, counts!.cancelled);
      // Each event's data is exactly what the document's webhook schema describes.
      const cancelled = WEBHOOK_EVENTS["redemption.cancelled"].shape.data.strict();
      for (const { data } of await stack.query<{ data: unknown }>(
        `SELECT data FROM "Event" WHERE "programId" = $1::uuid AND type = 'redemption.cancelled'`,
        [stack.programId],
      ))
        cancelled.parse(data);

      // 25 hours later the default 24-hour window has passed (the CLI's --now: one process, the slowest step here).
      const later = new Date(Date.now() + 25 * 3600e3).toISOString();
      const closed = await stack.cliRun([
        "redemption",
        "cancel",
        "--program",
        stack.programId,
        "--id",
        redeemed.id,
        "--reason",
        "late",
        "--now",
        later,
      ]);
      assert.notEqual(closed.code, 0);
      assert.equal((closed.json?.error as { code?: string } | undefined)?.code, "cancel_window_closed", closed.stdout);
    });
  });
}
