import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LEASE_MS, LeasedBuckets, takeSharedToken, takeToken, type RateDecision } from "@/lib/api/rate-limit";
import type { Db } from "@/lib/db/types";
import { memoryDatabase, type MemoryDatabase } from "../support/pglite-memory";

let n = 0;
/** Buckets live in module memory: each test takes keys of its own. */
const key = () => `unit-${process.pid}-${++n}`;
const T0 = 1_700_000_000_000;

describe("takeToken (per-key token bucket)", () => {
  test("allows exactly the burst at once, counting down Remaining, then refuses", () => {
    const id = key();
    for (let i = 0; i < 100; i++) {
      const d = takeToken(id, 1, 100, T0);
      assert.equal(d.allowed, true, `request ${i + 1}`);
      assert.equal(d.remaining, 99 - i);
      assert.equal(d.limit, 100, "Limit is the burst: Remaining never exceeds it");
    }
    const refused = takeToken(id, 1, 100, T0);
    assert.equal(refused.allowed, false);
    assert.equal(refused.remaining, 0);
    assert.equal(refused.retryAfterSeconds, 1);
    assert.equal(refused.resetSeconds, 100, "a full refill takes burst / rate seconds");
  });

  test("refills at the rate: a token comes back after 1 / rate seconds, not before", () => {
    const id = key();
    for (let i = 0; i < 3; i++) takeToken(id, 1, 3, T0);
    assert.equal(takeToken(id, 1, 3, T0).allowed, false);
    assert.equal(takeToken(id, 1, 3, T0 + 999).allowed, false);
    assert.equal(takeToken(id, 1, 3, T0 + 1000).allowed, true);
    assert.equal(takeToken(id, 1, 3, T0 + 1000).allowed, false);
    // Retry-After rounds the wait up to whole seconds and is at least 1.
    const fast = key();
    for (let i = 0; i < 10; i++) takeToken(fast, 10, 10, T0);
    assert.equal(takeToken(fast, 10, 10, T0).retryAfterSeconds, 1);
    const slow = key();
    takeToken(slow, 0.25, 1, T0);
    assert.equal(takeToken(slow, 0.25, 1, T0).retryAfterSeconds, 4);
  });

  test("a long idle time never fills the bucket beyond its burst", () => {
    const id = key();
    takeToken(id, 50, 100, T0);
    const later = takeToken(id, 50, 100, T0 + 3_600_000);
    assert.equal(later.allowed, true);
    assert.equal(later.remaining, 99);
    let allowed = 1;
    while (takeToken(id, 50, 100, T0 + 3_600_000).allowed) allowed++;
    assert.equal(allowed, 100);
  });

  test("RateLimit-Reset is the time to refill completely", () => {
    const id = key();
    for (let i = 0; i < 10; i++) takeToken(id, 5, 20, T0);
    const d = takeToken(id, 5, 20, T0);
    assert.equal(d.remaining, 9);
    assert.equal(d.resetSeconds, Math.ceil(11 / 5));
  });

  test("each key has its own bucket", () => {
    const a = key();
    const b = key();
    assert.equal(takeToken(a, 1, 1, T0).allowed, true);
    assert.equal(takeToken(a, 1, 1, T0).allowed, false);
    assert.equal(takeToken(b, 1, 1, T0).allowed, true);
  });
});

describe("RateLimit headers' numbers", () => {
  test("Remaining never exceeds Limit, whatever the rate and burst (the old Limit was the rate)", () => {
    for (const [rate, burst] of [
      [1, 100],
      [50, 100],
      [1000, 10],
      [3, 3],
    ] as const) {
      const id = key();
      for (let i = 0; i < burst + 2; i++) {
        const d = takeToken(id, rate, burst, T0);
        assert.equal(d.limit, burst);
        assert.ok(d.remaining >= 0 && d.remaining <= d.limit, `${rate}/s burst ${burst}: remaining ${d.remaining}`);
      }
    }
  });

  test("the policy window is the time to refill an empty bucket, at least 1 s", () => {
    assert.equal(takeToken(key(), 50, 100, T0).windowSeconds, 2);
    assert.equal(takeToken(key(), 1, 10, T0).windowSeconds, 10);
    assert.equal(takeToken(key(), 1000, 10, T0).windowSeconds, 1);
  });
});

/**
 * The shared bucket (TAKE_TOKEN_SQL) on a real PostgreSQL (in-memory PGlite): the same decisions as the in-process
 * one, by the database's clock. The cross-instance behaviour is tested with two servers in
 * test/integration/threat-rate-limit-across-instances.test.ts.
 */
describe("takeSharedToken (the bucket as one row, by the database's clock)", () => {
  let database: MemoryDatabase;
  const take = (id: string, rate: number, burst: number) => takeSharedToken(database.prisma, id, rate, burst);
  test.before(async () => (database = await memoryDatabase()));
  test.after(async () => database?.close());

  test("a new bucket starts full: exactly the burst at once, then 429 with Retry-After", async () => {
    const id = key();
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 6; i++) decisions.push(await take(id, 0.001, 5));
    assert.deepEqual(
      decisions.map((d) => d.allowed),
      [true, true, true, true, true, false],
    );
    assert.deepEqual(
      decisions.map((d) => d.remaining),
      [4, 3, 2, 1, 0, 0],
    );
    assert.ok(decisions.every((d) => d.limit === 5));
    assert.ok(decisions[5]!.retryAfterSeconds >= 999, "0.001/s: a token is back in about 1000 s");
  });

  test("refills at the rate between requests, never above the burst", async () => {
    const id = key();
    for (let i = 0; i < 3; i++) await take(id, 1000, 3);
    // 1000/s: a few milliseconds later some tokens are back, and never more than the burst.
    await new Promise((r) => setTimeout(r, 20));
    const d = await take(id, 1000, 3);
    assert.equal(d.allowed, true);
    assert.equal(d.remaining, 2, "full again (3), minus this request");
  });

  test("concurrent requests never spend the same token twice", async () => {
    const id = key();
    const all = await Promise.all(Array.from({ length: 20 }, () => take(id, 0.001, 7)));
    assert.equal(all.filter((d) => d.allowed).length, 7);
  });

  test("a lowered burst caps the stored tokens at once", async () => {
    const id = key();
    await take(id, 0.001, 100);
    const d = await take(id, 0.001, 2);
    assert.equal(d.allowed, true);
    assert.equal(d.remaining, 1);
  });
});

/**
 * Leases (LeasedBuckets): two instances (two lease tables) drawing on one shared bucket in PGlite. Whatever the
 * interleaving they never let through more than the shared bucket gives, a small key keeps its exact per-request
 * decisions, and a busy key's requests mostly cost no statement.
 */
describe("LeasedBuckets (a busy key's tokens taken a few at a time)", () => {
  let database: MemoryDatabase;
  test.before(async () => (database = await memoryDatabase()));
  test.after(async () => database?.close());
  /** The database with its statements counted. */
  const counting = () => {
    const counter = { statements: 0, db: null as unknown as Db };
    counter.db = new Proxy(database.prisma, {
      get(target, prop, receiver) {
        if (prop === "$queryRawUnsafe")
          return (...args: Parameters<typeof target.$queryRawUnsafe>) => {
            counter.statements++;
            return target.$queryRawUnsafe(...args);
          };
        return Reflect.get(target, prop, receiver);
      },
    }) as Db;
    return counter;
  };

  test("a key whose burst is below 40 takes one token per request: the same decisions as the shared bucket", async () => {
    const id = key();
    const [a, b] = [new LeasedBuckets(), new LeasedBuckets()];
    const c = counting();
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 8; i++) decisions.push(await (i % 2 ? a : b).take(c.db, id, 0.001, 5));
    assert.deepEqual(
      decisions.map((d) => d.allowed),
      [true, true, true, true, true, false, false, false],
    );
    assert.deepEqual(
      decisions.map((d) => d.remaining),
      [4, 3, 2, 1, 0, 0, 0, 0],
    );
    assert.equal(c.statements, 8, "one statement per request");
  });

  test("two instances together never let through more than the bucket's burst, and not much less", async () => {
    const id = key();
    const burst = 400;
    const instances = [new LeasedBuckets(), new LeasedBuckets()];
    const c = counting();
    let allowed = 0;
    // Concurrent waves alternating between the instances, far more requests than the burst; no refill (0.001/s).
    for (let wave = 0; wave < 30; wave++) {
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => instances[(wave + i) % 2]!.take(c.db, id, 0.001, burst)),
      );
      for (const d of results) {
        assert.ok(d.remaining <= burst && d.remaining >= 0);
        if (d.allowed) allowed++;
        else assert.ok(d.retryAfterSeconds >= 1);
      }
    }
    assert.ok(allowed <= burst, `${allowed} let through, the burst is ${burst}`);
    // Unused tokens of a lease are lost for at most LEASE_MS: at most a twentieth of the burst per instance here.
    assert.ok(allowed >= burst - 2 * (burst / 20), `only ${allowed} of ${burst} let through`);
    assert.ok(c.statements < 1200 / 3, `${c.statements} statements for 1,200 requests`);
  });

  test("a busy key's requests mostly cost no statement, and its lease lapses after LEASE_MS", async () => {
    const id = key();
    const leases = new LeasedBuckets();
    const c = counting();
    for (let i = 0; i < 200; i++) assert.equal((await leases.take(c.db, id, 100_000, 200_000)).allowed, true);
    assert.ok(c.statements <= 12, `${c.statements} statements for 200 requests`);
    const before = c.statements;
    await new Promise((r) => setTimeout(r, LEASE_MS + 20));
    await leases.take(c.db, id, 100_000, 200_000);
    assert.equal(c.statements, before + 1, "a lapsed lease is not used");
  });
});
