/**
 * Every raw statement of the /v1 hot path answers the same through each implementation of `RawQueries`
 * (lib/db/types.ts): the Prisma client, a Prisma transaction (the locked paths) and, on PostgreSQL, the pg pool that
 * `hotDb` hands the hot path (lib/db/client.ts `poolQueries`), whose rows node-postgres parses instead of Prisma. The
 * reads (the customer read model by e-mail and by id, the customer lookup, a ledger page and the next, the rewards
 * and tiers, the rate-limit bucket) must give equal values; the one-statement writes (increase by id and by e-mail,
 * keyed and replayed, decrease, a refused decrease, a redemption, an earning-flow run, a coupon, a Create/Update
 * batch) must give equal outcomes, ids and times aside, on customers in the same state. A statement marked
 * `customPlan` (the dashboard search) runs unnamed through every one, the others prepared by name on PostgreSQL.
 * PGlite (in memory, Prisma and a transaction) and PostgreSQL (a fresh database, all three).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { PrismaClient } from "@/lib/generated/prisma/client";
import type { RawQueries } from "@/lib/db/types";
import { customPlan, query, raw, sql } from "@/lib/db/sql";
import { openAdapter, type OpenedAdapter } from "@/lib/db/adapter";
import { poolQueries } from "@/lib/db/client";
import type { OutcomeSlot } from "@/lib/db/keyed-statement";
import { AppError } from "@/lib/errors";
import { createProgram } from "@/lib/domain/programs";
import { createTier, listTiersJson } from "@/lib/domain/tiers";
import { applyUserBatch } from "@/lib/domain/customers";
import { decreaseBalance, increaseBalance, listTransactionsJson } from "@/lib/domain/points";
import { createReward, listActiveRewardsJson } from "@/lib/domain/rewards";
import { createEarningFlow } from "@/lib/domain/earning-flows";
import { createCouponPool, importCoupons } from "@/lib/domain/coupons";
import { getCustomerJson, getCustomerJsonById } from "@/lib/domain/customer-read";
import { resolveCustomerId } from "@/lib/domain/customer-lookup";
import { takeSharedToken } from "@/lib/api/rate-limit";
import {
  applyIntegrationBatchInOneStatement,
  assignCouponInOneStatement,
  changeBalanceInOneStatement,
  executeEarningFlowInOneStatement,
  redeemRewardInOneStatement,
} from "@/lib/api/one-statement";
import { memoryDatabase } from "../support/pglite-memory";
import { BACKENDS, MIGRATED_ONLY, openStack, type Backend } from "../support/stack";

/** Each raw statement in its own transaction, as a locked path runs it. */
const inTransaction = (prisma: PrismaClient): RawQueries => ({
  $queryRawUnsafe: (sql, ...values) => prisma.$transaction((tx) => tx.$queryRawUnsafe(sql, ...values)),
});

interface Opened {
  prisma: PrismaClient;
  implementations: Record<string, RawQueries>;
  close(): Promise<void>;
}

async function open(backend: Backend): Promise<Opened> {
  if (backend === "pglite") {
    const database = await memoryDatabase();
    const { prisma } = database;
    return { prisma, implementations: { prisma, transaction: inTransaction(prisma) }, close: () => database.close() };
  }
  const stack = await openStack("postgres", MIGRATED_ONLY);
  let opened: OpenedAdapter | undefined;
  try {
    // The production client's setup: one adapter over one pool, Prisma and the direct queries on it.
    opened = await openAdapter({ kind: "postgres", url: stack.env.DATABASE_URL! });
    const prisma = new PrismaClient({ adapter: opened.factory });
    const pool = poolQueries(opened.direct!);
    const adapter = opened;
    return {
      prisma,
      implementations: { prisma, transaction: inTransaction(prisma), pool },
      async close() {
        await prisma.$disconnect();
        await adapter.close();
        await stack.close();
      },
    };
  } catch (err) {
    await opened?.close().catch(() => {});
    await stack.close();
    throw err;
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;

for (const backend of BACKENDS) {
  describe(`The hot path's raw statements through every RawQueries [${backend}]`, () => {
    let db: Opened;
    let names: string[];
    let programId: string;
    let seq = 0;
    const NOW = new Date("2026-03-01T12:00:00.000Z");

    before(async () => {
      db = await open(backend);
      names = Object.keys(db.implementations);
      ({ programId } = await createProgram(db.prisma, { name: "Raw queries" }));
      await createTier(db.prisma, { programId, name: "Base", requiredPoints: 0, factor: 1 });
      await createTier(db.prisma, { programId, name: "Silver", requiredPoints: 50, factor: 1.5 });
    });
    after(() => db?.close());

    const each = async <T>(fn: (raw: RawQueries, name: string) => Promise<T>): Promise<Record<string, T>> => {
      const out: Record<string, T> = {};
      for (const name of names) out[name] = await fn(db.implementations[name]!, name);
      return out;
    };
    /** Every implementation's answer equals the Prisma client's; returns that answer. */
    const same = <T>(answers: Record<string, T>, what: string): T => {
      for (const name of names) assert.deepEqual(answers[name], answers.prisma, `${what}: ${name} vs prisma`);
      return answers.prisma!;
    };
    const refusal = (fn: () => Promise<unknown>) =>
      fn().then(
        () => "acted",
        (e) => (e instanceof AppError ? e.code : `unexpected: ${String(e)}`),
      );

    async function customer(points = 0): Promise<{ id: string; email: string }> {
      const email = `raw.${++seq}@example.com`;
      await db.prisma.$transaction((tx) => applyUserBatch(tx, programId, [{ email, feature: "user", payload: {} }]));
      const id = await resolveCustomerId(db.prisma, programId, email);
      if (points > 0) {
        await db.prisma.$transaction((tx) =>
          increaseBalance(tx, { programId, customerId: id, points, source: "api", actor: "t", now: NOW }),
        );
      }
      return { id, email };
    }

    test("reads: customer by e-mail and id, lookup, ledger pages, rewards, tiers, rate bucket", async () => {
      const who = await customer(30);
      for (const points of [5, 7]) {
        await db.prisma.$transaction((tx) =>
          increaseBalance(tx, { programId, customerId: who.id, points, source: "api", actor: "t", now: NOW }),
        );
      }
      await createReward(db.prisma, { programId, name: "Mug", costPoints: 10 });
      const reads = await each(async (raw, name) => {
        const first = await listTransactionsJson(raw, who.id, 2);
        const cursor = (JSON.parse(first) as { nextCursor: string }).nextCursor;
        return {
          byEmail: await getCustomerJson(raw, programId, who.email),
          byId: await getCustomerJsonById(raw, programId, who.id),
          nobody: await getCustomerJson(raw, programId, "nobody@example.com"),
          id: await resolveCustomerId(raw, programId, who.email),
          unknown: await refusal(() => resolveCustomerId(raw, programId, "nobody@example.com")),
          first,
          next: await listTransactionsJson(raw, who.id, 2, cursor),
          rewards: await listActiveRewardsJson(raw, programId),
          tiers: await listTiersJson(raw, programId),
          // A fresh bucket each: the first take is the same whenever it runs.
          bucket: await takeSharedToken(raw, `raw-${name}-${seq}`, 10, 30, 5),
        };
      });
      const read = same(reads, "reads");
      // The answers are the real ones, not empty alike.
      assert.equal((JSON.parse(read.byEmail!) as { loyaltyData: { balance: number } }).loyaltyData.balance, 42);
      assert.equal(read.byEmail, read.byId);
      assert.equal(read.nobody, null);
      assert.equal(read.id, who.id);
      assert.equal(read.unknown, "customer_not_found");
      assert.equal((JSON.parse(read.first) as { data: unknown[] }).data.length, 2);
      assert.equal((JSON.parse(read.next) as { data: unknown[]; nextCursor: null }).data.length, 1);
      assert.match(read.rewards, /"Mug"/);
      assert.equal((JSON.parse(read.tiers) as unknown[]).length, 2);
      assert.deepEqual([read.bucket.allowed, read.bucket.granted, read.bucket.tokens], [true, 5, 25]);
    });

    test("a customPlan statement runs unnamed (planned for its values every run); others are prepared by name", async () => {
      // Each statement asks whether the session holds a prepared statement of its own text (it names itself by a tag
      // in a comment): a named one is in pg_prepared_statements while it runs, the unnamed statement never is.
      const prepared = (tag: string) =>
        sql`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%' || ${tag} || '%' /* ${raw(tag)} */`;
      const answers = await each(async (handle, name) => {
        const out: Record<string, number> = {};
        // Seven runs: past the five custom plans after which PostgreSQL may switch a named statement to a generic one.
        for (let run = 0; run < 7; run++) {
          for (const [kind, statement] of [
            ["named", prepared(`named-${name}`)],
            ["custom", customPlan(prepared(`custom-${name}`))],
          ] as const) {
            out[kind] = (await query<{ n: number }>(handle, statement))[0]!.n;
          }
        }
        return out;
      });
      // PostgreSQL: the Prisma client, a transaction and the pool prepare by name, except a custom-plan statement.
      // PGlite sends every statement unnamed.
      const named = backend === "postgres" ? 1 : 0;
      for (const name of names) assert.deepEqual(answers[name], { named, custom: 0 }, name);
    });

    test("one-statement writes: the same outcomes on customers in the same state", async () => {
      const flowKey = `flow-${++seq}`;
      await createEarningFlow(db.prisma, { programId, key: flowKey, points: 20 });
      const rewardId = (await createReward(db.prisma, { programId, name: `Reward ${seq}`, costPoints: 10 })).rewardId;
      const outcomes = await each(async (raw, name) => {
        const hot = { prisma: db.prisma, raw };
        const who = await customer(100);
        const byEmail = await customer();
        const pool = (await createCouponPool(db.prisma, { programId, name: `Pool ${name} ${seq}`, validDays: 30 }))
          .couponPoolId;
        await importCoupons(db.prisma, pool, [`CODE${seq}`]);
        const slot: OutcomeSlot = { programId, scopeId: randomUUID(), key: "k1", fingerprint: "f1", legacy: "l1" };
        const move = { programId, customerId: who.id, source: "api" as const, actor: "t", now: NOW };
        const increase = increaseBalance.change({ ...move, points: 25, idempotencyKey: "k1" });
        const answers = {
          increase: await changeBalanceInOneStatement(hot, increase, slot),
          replay: await changeBalanceInOneStatement(hot, increase, slot),
          byEmail: await changeBalanceInOneStatement(
            hot,
            increaseBalance.change({ ...move, points: 3, customerId: null, email: byEmail.email }),
            null,
          ),
          decrease: await changeBalanceInOneStatement(hot, decreaseBalance.change({ ...move, points: 40 }), null),
          tooMuch: await refusal(() =>
            changeBalanceInOneStatement(hot, decreaseBalance.change({ ...move, points: 1000 }), null),
          ),
          redeem: await redeemRewardInOneStatement(
            hot,
            { programId, customerId: who.id, rewardId, actor: "t", metadata: { till: 3 } },
            null,
          ),
          run: await executeEarningFlowInOneStatement(
            hot,
            { programId, customerId: who.id, flowKey, params: {}, actor: "t", idempotencyKey: null, orderId: null },
            null,
          ),
          coupon: await assignCouponInOneStatement(hot, { programId, customerId: who.id, couponPoolId: pool }, null),
          batch: await applyIntegrationBatchInOneStatement(
            hot,
            programId,
            [
              { email: who.email, feature: "user", payload: { firstName: "Ann" } },
              { email: `raw.${name}.${seq}.new@example.com`, feature: "user", payload: { lastName: "New" } },
            ],
            null,
          ),
        };
        // Ids, times and this implementation's names aside, the outcomes must be equal.
        return JSON.parse(
          JSON.stringify(answers)
            .replaceAll(who.email, "<who>")
            .replaceAll(byEmail.email, "<byEmail>")
            .replace(/"code\\":\\"[^"\\]*\\"/g, '"code\\":\\"<code>\\"')
            .replace(UUID, "<uuid>")
            .replace(ISO, "<time>"),
        ) as typeof answers;
      });
      const written = same(outcomes, "outcomes");
      assert.deepEqual(
        Object.fromEntries(
          Object.entries(written).map(([k, v]) => [k, typeof v === "string" ? v : v && [v.status, v.replayed]]),
        ),
        {
          increase: [200, false],
          replay: [200, true],
          byEmail: [200, false],
          decrease: [200, false],
          tooMuch: "insufficient_balance",
          redeem: [201, false],
          run: [200, false],
          coupon: [201, false],
          batch: [201, false],
        },
      );
      assert.equal(written.replay!.body, written.increase!.body);
      assert.equal((JSON.parse(written.decrease!.body!) as { balance: number }).balance, 85);
    });
  });
}
