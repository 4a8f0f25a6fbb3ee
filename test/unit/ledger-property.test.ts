/**
 * Property: random sequences of balance increases and decreases (some of which must be refused), custom earning
 * flows (fixed, per unit × tier factor, capped, once), tier recalculations and points expiries, reversals of earns
 * and spends (partial, full, over the cap, another customer's) and order refunds (partial shares adding up, full,
 * repeated, unknown orders), with time moving forward, run against the real domain layer on a real PostgreSQL (in-memory PGlite, every migration applied) and
 * against a small independent model of API.md §4 written here (it does not use lib/domain/tier-rules.ts).
 *
 * After every step, for every customer: balance = sum of ledger points ≥ 0 = sum of PointLot.remaining; the lots
 * left (by expiry and age) are the model's, i.e. spends and expiries take the oldest points first; the ledger's
 * totals by type and its entry count are the model's; the points requested over an entry's reversals never exceed it
 * and an order's reversed points are floor(orderPoints × min(1, Σ refunded shares)) once refunded (or more, after
 * reversals); tier points are earned − reversed in the period; and tier, currentTierPoints, carryTier, carryTierPoints,
 * tierStatus, tierChangedAt and recalculationDate are the model's.
 *
 * Time is a virtual clock passed as `now` to every domain call (ledger createdAt, lot expiry, caps, tiers), starting
 * in 2030 so that nothing the database stamps with its own now() can be confused with it.
 *
 * FC_SEED and FC_RUNS override the fixed seed and the number of runs (e.g. FC_SEED=$RANDOM to explore).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { AppError } from "@/lib/errors";
import { changeBalanceInOneStatement } from "@/lib/api/one-statement";
import { applyUserBatch } from "@/lib/domain/customers";
import { createEarningFlow, executeEarningFlow } from "@/lib/domain/earning-flows";
import { decreaseBalance, expireDuePoints, increaseBalance } from "@/lib/domain/points";
import { createProgram, updateProgram } from "@/lib/domain/programs";
import { createTier } from "@/lib/domain/tiers";
import { recalculateDueTiers } from "@/lib/domain/tiers-engine";
import { planRefund, refundOrder } from "@/lib/domain/refunds";
import { reverseEntry } from "@/lib/domain/reversals";
import { memoryDatabase, type MemoryDatabase } from "../support/pglite-memory";

const SEED = Number(process.env.FC_SEED ?? 20261123);
const RUNS = Number(process.env.FC_RUNS ?? 30);
const MAX_STEPS = 40;

// ---- the independent model -----------------------------------------------------------------------------------

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Calendar months in UTC, clamped to the target month's last day, time of day kept (as PostgreSQL's `+ interval`). */
function plusMonths(t: number, months: number): number {
  const d = new Date(t);
  const first = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const y = first.getUTCFullYear();
  const m = first.getUTCMonth();
  const daysInMonth = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(
    y,
    m,
    Math.min(d.getUTCDate(), daysInMonth),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds(),
  );
}
const startOfUtcDay = (t: number) => Math.floor(t / DAY) * DAY;
const iso = (t: number) => new Date(t).toISOString();

/** A factor as an exact fraction, so the model's rounding is exact and independent of floating point. */
type Ratio = readonly [num: number, den: number];
interface TierSpec {
  name: string;
  required: number;
  factor: Ratio;
}

/** Tier sets, each listed lowest first (they are created in reverse order, so the code must sort). */
const TIER_SETS: Record<string, TierSpec[]> = {
  standard: [
    { name: "Bronze", required: 0, factor: [1, 1] },
    { name: "Silver", required: 100, factor: [5, 4] },
    { name: "Gold", required: 300, factor: [3, 2] },
    { name: "Platinum", required: 800, factor: [2, 1] },
  ],
  // Factors that binary floating point cannot represent exactly (1.1, 0.7).
  inexact: [
    { name: "Member", required: 0, factor: [7, 10] },
    { name: "Plus", required: 60, factor: [11, 10] },
  ],
  // The lowest tier needs points: every customer still starts on it (it is the base tier).
  club: [
    { name: "Member", required: 50, factor: [1, 1] },
    { name: "VIP", required: 250, factor: [3, 2] },
  ],
  single: [{ name: "Only", required: 0, factor: [1, 2] }],
  none: [],
};

interface FlowSpec {
  points?: number;
  /** pointsPerUnit as an exact fraction, of the numeric param `amount`. */
  perUnit?: Ratio;
  capPerDay?: number;
  capTotal?: number;
  once?: boolean;
}
const FLOWS: Record<string, FlowSpec> = {
  visit: { points: 10 },
  purchase: { perUnit: [3, 10] },
  review: { points: 7, capPerDay: 20, capTotal: 50 },
  signup: { points: 5, once: true },
};
type FlowKey = keyof typeof FLOWS & string;
const FLOW_KEYS = Object.keys(FLOWS) as FlowKey[];

type Status = "base" | "earned" | "carried";

interface Lot {
  remaining: number;
  created: number;
  expires: number | null;
  /** The ledger entry that added the points (a reversal takes from its entry's own lot first). */
  entry?: string;
}

/** A reversible ledger entry: an earn (API increase or flow run) or a spend, with what was requested of it. */
interface Reversible {
  id: string;
  customer: number;
  type: "earn" | "spend";
  points: number;
  at: number;
  orderId: string | null;
  reversed: number;
}

class ModelCustomer {
  balance = 0;
  lots: Lot[] = [];
  /** Ledger totals by type, and the number of entries. */
  sums = { earn: 0, spend: 0, expire: 0, reversal: 0 };
  entries = 0;
  flowLog: { flow: FlowKey; at: number; points: number }[] = [];
  /** Index into the program's tiers (lowest first); -1 for none. */
  tier: number;
  carry = -1;
  points = 0;
  carryPoints = 0;
  changedAt: number | null;

  constructor(
    readonly program: ModelProgram,
    public recalcAt: number,
    joined: number,
  ) {
    // API.md §2: a new customer starts on the base tier, the program's lowest.
    this.tier = program.tiers.length > 0 ? 0 : -1;
    this.changedAt = program.tiers.length > 0 ? joined : null;
  }

  /** The highest tier the points reach, -1 when none. */
  reached(points: number): number {
    let r = -1;
    this.program.tiers.forEach((t, i) => {
      if (t.required <= points) r = i;
    });
    return r;
  }

  /** API.md §4: base = no tier above the base one; earned = current tier reached in this period; else carried. */
  get status(): Status {
    if (this.tier <= 0) return "base";
    return this.reached(this.points) >= this.tier ? "earned" : "carried";
  }

  /** Closes every period that ended by `now` (recalculationDate ≤ now). */
  closePeriods(now: number) {
    const before = this.tier;
    while (this.recalcAt <= now) {
      this.carry = this.reached(this.points);
      this.carryPoints = this.points;
      this.points = 0;
      // The better of the carry tier and what 0 points hold: the base tier (the lowest), if there are tiers.
      this.tier = Math.max(this.carry, this.program.tiers.length > 0 ? 0 : -1);
      this.recalcAt = plusMonths(this.recalcAt, this.program.periodMonths);
    }
    if (this.tier !== before) this.changedAt = now;
  }

  expiryOf(now: number): number | null {
    return this.program.expiryMonths === null ? null : plusMonths(now, this.program.expiryMonths);
  }

  /** Earned points: a new lot, counted towards tiers (after closing an ended period), upgrading at once. */
  earn(points: number, now: number) {
    this.closePeriods(now);
    this.balance += points;
    this.sums.earn += points;
    this.entries++;
    this.lots.push({ remaining: points, created: now, expires: this.expiryOf(now) });
    this.points += points;
    const r = this.reached(this.points);
    if (r > this.tier) {
      this.tier = r;
      this.changedAt = now;
    }
  }

  due(now: number): number {
    return this.lots.filter((l) => l.expires !== null && l.expires <= now).reduce((s, l) => s + l.remaining, 0);
  }

  /** Points past their expiry become one `expire` entry. */
  expireDue(now: number): number {
    const due = this.due(now);
    if (due === 0) return 0;
    for (const l of this.lots) if (l.expires !== null && l.expires <= now) l.remaining = 0;
    this.balance -= due;
    this.sums.expire -= due;
    this.entries++;
    return due;
  }

  /** Expired points never pay for a spend, whether or not the expiry job has run. */
  canSpend(points: number, now: number) {
    return this.balance - this.due(now) >= points;
  }

  spend(points: number, now: number) {
    this.expireDue(now);
    this.takeLots(points);
    this.balance -= points;
    this.sums.spend -= points;
    this.entries++;
  }

  /** Points taken from the lots: `first`'s own lot first, then the oldest (by expiry, then age). */
  takeLots(points: number, first?: string) {
    let left = points;
    const oldestFirst = [...this.lots].sort(
      (a, b) =>
        Number(b.entry === first && first !== undefined) - Number(a.entry === first && first !== undefined) ||
        (a.expires ?? Infinity) - (b.expires ?? Infinity) ||
        a.created - b.created,
    );
    for (const l of oldestFirst) {
      const used = Math.min(l.remaining, left);
      l.remaining -= used;
      left -= used;
    }
    assert.equal(left, 0, "model: lots cover the balance");
  }

  /**
   * The reversal policy of lib/domain/reversals.ts: an earn is taken back as far as the balance allows (its own lot
   * first, after expiring what is due) and lowers the tier points of the period it counted in by the points
   * requested; a spend gives the points back as a new lot. Returns the points not recovered.
   */
  reverse(entry: Reversible, requested: number, now: number): number {
    entry.reversed += requested;
    this.entries++;
    if (entry.type === "spend") {
      this.balance += requested;
      this.sums.reversal += requested;
      this.lots.push({ remaining: requested, created: now, expires: this.expiryOf(now) });
      return 0;
    }
    this.expireDue(now);
    const taken = Math.min(requested, this.balance);
    this.takeLots(taken, entry.id);
    this.balance -= taken;
    this.sums.reversal -= taken;
    this.closePeriods(now);
    const start = plusMonths(this.recalcAt, -this.program.periodMonths);
    if (entry.at >= start) this.points -= Math.min(requested, this.points);
    else if (entry.at >= plusMonths(start, -this.program.periodMonths))
      this.carryPoints -= Math.min(requested, this.carryPoints);
    return requested - taken;
  }

  /** A flow run: base points × the current tier's factor, rounded down, then limited by the caps. */
  runFlow(key: FlowKey, amountCents: number, now: number): { earned: number; capped: string | null } {
    this.closePeriods(now);
    const flow = FLOWS[key]!;
    const [fn, fd] = this.tier >= 0 ? this.program.tiers[this.tier]!.factor : ([1, 1] as const);
    let points =
      flow.points !== undefined
        ? Math.floor((flow.points * fn) / fd)
        : Math.floor((amountCents * flow.perUnit![0] * fn) / (100 * flow.perUnit![1] * fd));
    let capped: string | null = null;
    const mine = this.flowLog.filter((e) => e.flow === key);
    const limits: [string, number][] = [];
    if (flow.once) limits.push(["once", mine.length > 0 ? 0 : points]);
    if (flow.capTotal !== undefined) limits.push(["cap_total", flow.capTotal - mine.reduce((s, e) => s + e.points, 0)]);
    if (flow.capPerDay !== undefined) {
      const today = mine.filter((e) => e.at >= startOfUtcDay(now)).reduce((s, e) => s + e.points, 0);
      limits.push(["cap_per_day", flow.capPerDay - today]);
    }
    for (const [reason, room] of limits) {
      if (room < points) {
        points = Math.max(0, room);
        capped = reason;
      }
    }
    if (points > 0) {
      this.earn(points, now);
      this.flowLog.push({ flow: key, at: now, points });
    }
    return { earned: points, capped };
  }
}

interface ModelProgram {
  tiers: TierSpec[];
  periodMonths: number;
  expiryMonths: number | null;
}

// ---- the operations ------------------------------------------------------------------------------------------

type Op =
  | { t: "inc"; c: number; points: number; order?: number | null }
  /** Reverses the `pick`-th reversible entry of the customer: `points` of it, or everything left. */
  | { t: "rev"; c: number; pick: number; points: number | null }
  /** Names another customer's entry: 404 transaction_not_found. */
  | { t: "revOther"; c: number; pick: number }
  /** Refunds `amount` of 100 of the order (null: in full). */
  | { t: "refund"; order: number; amount: number | null }
  | { t: "dec"; c: number; points: number }
  /** A decrease of exactly the spendable points + delta: the boundary between success and 409. */
  | { t: "decEdge"; c: number; delta: number }
  | { t: "flow"; c: number; flow: FlowKey; cents: number }
  | { t: "flowNoParam"; c: number }
  | { t: "recalc"; batch: number }
  | { t: "expire"; batch: number }
  | { t: "wait"; ms: number }
  /** Moves the clock to a customer's next recalculation date or next lot expiry, ± 1 ms. */
  | { t: "waitUntil"; c: number; what: "recalc" | "expiry"; offset: -1 | 0 | 1 };

const cust = fc.nat(2);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant("inc" as const),
      c: cust,
      points: fc.integer({ min: 1, max: 400 }),
      order: fc.option(fc.nat(2), { nil: null }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("rev" as const),
      c: cust,
      pick: fc.nat(30),
      points: fc.option(fc.integer({ min: 1, max: 450 }), { nil: null }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("revOther" as const), c: cust, pick: fc.nat(30) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("refund" as const),
      order: fc.nat(3),
      amount: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ t: fc.constant("dec" as const), c: cust, points: fc.integer({ min: 1, max: 500 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant("decEdge" as const), c: cust, delta: fc.integer({ min: -2, max: 2 }) }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant("flow" as const),
      c: cust,
      flow: fc.constantFrom(...FLOW_KEYS),
      cents: fc.integer({ min: 0, max: 100_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("flowNoParam" as const), c: cust }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("recalc" as const), batch: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("expire" as const), batch: fc.integer({ min: 1, max: 3 }) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("wait" as const),
      ms: fc.oneof(
        fc.constant(0),
        fc.integer({ min: 1, max: 6 * HOUR }),
        fc.integer({ min: 1, max: 20 * DAY }),
        fc.integer({ min: 20 * DAY, max: 70 * DAY }),
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("waitUntil" as const),
      c: cust,
      what: fc.constantFrom("recalc" as const, "expiry" as const),
      offset: fc.constantFrom(-1 as const, 0 as const, 1 as const),
    }),
  },
);

const configArb = fc.record({
  tierSet: fc.constantFrom(...Object.keys(TIER_SETS)),
  periodMonths: fc.integer({ min: 1, max: 3 }),
  expiryMonths: fc.option(fc.integer({ min: 1, max: 3 }), { freq: 5, nil: null }),
  customers: fc.integer({ min: 1, max: 3 }),
  // Month ends, so periods and expiries are clamped (Jan 31 + 1 month = Feb 28).
  start: fc.constantFrom(
    "2030-01-31T12:00:00.000Z",
    "2030-03-31T23:59:59.999Z",
    "2031-08-31T00:00:00.000Z",
    "2031-12-31T18:30:00.000Z",
  ),
});
type Config = typeof configArb extends fc.Arbitrary<infer C> ? C : never;

// ---- the system under test -----------------------------------------------------------------------------------

let database: MemoryDatabase;
let prisma: PrismaClient;
let runNo = 0;

before(async () => {
  database = await memoryDatabase();
  prisma = database.prisma;
});
after(async () => {
  await database?.close();
});

interface World {
  programId: string;
  tierIds: string[];
  customerIds: string[];
  model: ModelCustomer[];
  program: ModelProgram;
  now: number;
  /** Every reversible entry, in the order written. */
  log: Reversible[];
  /** Σ amount refunded per order, of a total of 100 each. */
  refunded: Map<string, number>;
}

async function setUp(config: Config): Promise<World> {
  const run = ++runNo;
  const program: ModelProgram = {
    tiers: TIER_SETS[config.tierSet]!,
    periodMonths: config.periodMonths,
    expiryMonths: config.expiryMonths,
  };
  const { programId } = await createProgram(prisma, { name: `property ${run}`, tierPeriodMonths: config.periodMonths });
  if (config.expiryMonths !== null) await updateProgram(prisma, programId, { pointsExpiryMonths: config.expiryMonths });
  const tierIds: string[] = new Array(program.tiers.length);
  for (let i = program.tiers.length - 1; i >= 0; i--) {
    const t = program.tiers[i]!;
    tierIds[i] = (
      await createTier(prisma, {
        programId,
        name: t.name,
        requiredPoints: t.required,
        factor: t.factor[0] / t.factor[1],
      })
    ).tierId;
  }
  for (const [key, f] of Object.entries(FLOWS)) {
    await createEarningFlow(prisma, {
      programId,
      key,
      points: f.points ?? null,
      pointsPerUnit: f.perUnit ? f.perUnit[0] / f.perUnit[1] : null,
      param: f.perUnit ? "amount" : null,
      capPerDay: f.capPerDay ?? null,
      capTotal: f.capTotal ?? null,
      once: f.once ?? false,
    });
  }
  const emails = Array.from({ length: config.customers }, (_, i) => `c${i}.run${run}@example.com`);
  await prisma.$transaction((tx) =>
    applyUserBatch(
      tx,
      programId,
      emails.map((email) => ({ email, feature: "user" as const, payload: {} })),
    ),
  );
  const rows = await prisma.$queryRawUnsafe<{ id: string; email: string; currentTierId: string | null }[]>(
    `SELECT c.id, c.email, ct."currentTierId" FROM "Customer" c JOIN "CustomerTier" ct ON ct."customerId" = c.id WHERE c."programId" = $1::uuid`,
    programId,
  );
  const byEmail = new Map(rows.map((r) => [r.email, r]));
  const customerIds = emails.map((e) => byEmail.get(e)!.id);
  // A new customer is on the base tier: the program's lowest, whatever its requiredPoints.
  for (const e of emails)
    assert.equal(byEmail.get(e)!.currentTierId, tierIds[0] ?? null, "a new customer starts on the lowest tier");

  // Put the customers' clocks on the virtual time line: joined at `start`, first period ending one period later.
  const now = Date.parse(config.start);
  const firstRecalc = plusMonths(now, config.periodMonths);
  await prisma.$executeRawUnsafe(
    `UPDATE "CustomerTier" SET "recalculationDate" = $2::timestamptz,
            "tierChangedAt" = CASE WHEN "tierChangedAt" IS NULL THEN NULL ELSE $3::timestamptz END
     WHERE "customerId" = ANY($1::uuid[])`,
    customerIds,
    iso(firstRecalc),
    iso(now),
  );
  return {
    programId,
    tierIds,
    customerIds,
    program,
    now,
    model: customerIds.map(() => new ModelCustomer(program, firstRecalc, now)),
    log: [],
    refunded: new Map(),
  };
}

const expectAppError = (status: number, code: string) => (err: unknown) => {
  assert.ok(
    err instanceof AppError,
    `expected AppError ${status} ${code}, got ${String((err as Error)?.stack ?? err)}`,
  );
  assert.equal(err.status, status);
  assert.equal(err.code, code);
  return true;
};

function checkEntry(entryJson: string, expected: Record<string, unknown>) {
  const entry = JSON.parse(entryJson);
  for (const [k, v] of Object.entries(expected)) assert.deepEqual(entry[k], v, `ledger entry ${k}`);
}

/**
 * A balance change as the API makes it: the one-statement hot path (lib/api/one-statement.ts `changeBalanceInOneStatement`), or the locked
 * path in a transaction when the statement hands the request over (points due to expire, a tier period to close).
 */
async function apiChange(change: typeof increaseBalance, move: Parameters<typeof increaseBalance>[1]) {
  const done = await changeBalanceInOneStatement({ prisma, raw: prisma }, change.change(move), null);
  if (!done) return prisma.$transaction((tx) => change(tx, move));
  const body = JSON.parse(done.body!);
  return { balance: body.balance as number, entryJson: JSON.stringify(body.transaction) };
}

async function step(w: World, op: Op): Promise<void> {
  const c = "c" in op ? op.c % w.customerIds.length : 0;
  const customerId = w.customerIds[c]!;
  const m = w.model[c]!;
  const now = w.now;
  const base = { programId: w.programId, customerId, source: "api" as const, actor: "test", now: new Date(now) };
  const expiresAt = w.program.expiryMonths === null ? null : iso(plusMonths(now, w.program.expiryMonths));

  switch (op.t) {
    case "inc": {
      const orderId = op.order == null ? null : `order-${op.order}`;
      const r = await apiChange(increaseBalance, { ...base, points: op.points, orderId });
      m.earn(op.points, now);
      logEntry(w, c, r.entryJson, "earn", op.points, now, orderId);
      assert.equal(r.balance, m.balance, "balance returned by increase");
      checkEntry(r.entryJson, {
        type: "earn",
        points: op.points,
        balanceAfter: m.balance,
        source: "api",
        createdAt: iso(now),
        expiresAt,
      });
      return;
    }
    case "dec":
    case "decEdge": {
      const points = op.t === "dec" ? op.points : Math.max(1, m.balance - m.due(now) + op.delta);
      const run = () => apiChange(decreaseBalance, { ...base, points });
      if (!m.canSpend(points, now)) {
        await assert.rejects(run, expectAppError(409, "insufficient_balance"));
        return; // nothing written, not even the lazy expiry: the checks after the step prove it
      }
      const r = await run();
      m.spend(points, now);
      logEntry(w, c, r.entryJson, "spend", points, now, null);
      assert.equal(r.balance, m.balance, "balance returned by decrease");
      checkEntry(r.entryJson, {
        type: "spend",
        points: -points,
        balanceAfter: m.balance,
        createdAt: iso(now),
        expiresAt: null,
      });
      return;
    }
    case "flow": {
      const params = op.flow === "purchase" ? { amount: op.cents / 100 } : {};
      const r = await prisma.$transaction((tx) =>
        executeEarningFlow(tx, {
          programId: w.programId,
          customerId,
          flowKey: op.flow,
          params,
          actor: "test",
          now: new Date(now),
        }),
      );
      const expected = m.runFlow(op.flow, op.cents, now);
      assert.deepEqual({ earned: r.pointsEarned, capped: r.capped }, expected, `flow ${op.flow} outcome`);
      assert.equal(r.balance, m.balance, "balance returned by the flow");
      if (expected.earned === 0) assert.equal(r.transactionJson, null);
      else logEntry(w, c, r.transactionJson!, "earn", expected.earned, now, null);
      if (expected.earned !== 0)
        checkEntry(r.transactionJson!, {
          type: "earn",
          source: "earning_flow",
          points: expected.earned,
          balanceAfter: m.balance,
          createdAt: iso(now),
          expiresAt,
        });
      return;
    }
    case "flowNoParam": {
      await assert.rejects(
        prisma.$transaction((tx) =>
          executeEarningFlow(tx, {
            programId: w.programId,
            customerId,
            flowKey: "purchase",
            params: { amount: "12" },
            actor: "test",
            now: new Date(now),
          }),
        ),
        expectAppError(400, "validation_failed"),
      );
      return;
    }
    case "recalc": {
      const due = w.model.filter((x) => x.recalcAt <= now).length;
      const r = await recalculateDueTiers(prisma, { programId: w.programId, now: new Date(now), batchSize: op.batch });
      for (const x of w.model) x.closePeriods(now);
      assert.equal(r.recalculated, due, "customers recalculated");
      return;
    }
    case "expire": {
      const due = w.model.map((x) => x.due(now));
      const r = await expireDuePoints(prisma, { programId: w.programId, now: new Date(now), batchSize: op.batch });
      for (const x of w.model) x.expireDue(now);
      assert.deepEqual(
        r,
        { customers: due.filter((d) => d > 0).length, points: due.reduce((s, d) => s + d, 0) },
        "expiry job result",
      );
      return;
    }
    case "rev": {
      const mine = w.log.filter((e) => e.customer === c);
      if (mine.length === 0) return;
      const entry = mine[op.pick % mine.length]!;
      const left = entry.points - entry.reversed;
      const requested = op.points ?? left;
      const run = () =>
        prisma.$transaction((tx) =>
          reverseEntry(tx, { ...base, transactionId: entry.id, points: op.points, reason: "property" }),
        );
      if (requested > left || requested === 0) {
        await assert.rejects(run, expectAppError(409, "reversal_exceeds_original"));
        return;
      }
      const r = await run();
      const unrecovered = m.reverse(entry, requested, now);
      assert.deepEqual(
        { balance: r.balance, requested: r.requested, unrecovered: r.unrecovered },
        { balance: m.balance, requested, unrecovered },
        "reversal outcome",
      );
      const sign = entry.type === "earn" ? -1 : 1;
      checkEntry(r.entryJson, {
        type: "reversal",
        points: sign * (requested - unrecovered) || 0,
        balanceAfter: m.balance,
        reversesId: entry.id,
        orderId: entry.orderId,
        metadata: { requested, unrecovered },
        createdAt: iso(now),
      });
      return;
    }
    case "revOther": {
      const theirs = w.log.filter((e) => e.customer !== c);
      if (theirs.length === 0) return;
      const entry = theirs[op.pick % theirs.length]!;
      await assert.rejects(
        prisma.$transaction((tx) => reverseEntry(tx, { ...base, transactionId: entry.id, reason: "property" })),
        expectAppError(404, "transaction_not_found"),
      );
      return;
    }
    case "refund": {
      const orderId = `order-${op.order}`;
      const entries = w.log
        .filter((e) => e.type === "earn" && e.orderId === orderId)
        .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
      const run = () =>
        prisma.$transaction((tx) =>
          refundOrder(tx, {
            programId: w.programId,
            orderId,
            amount: op.amount,
            total: op.amount === null ? null : 100,
            reason: "property",
            source: "api",
            actor: "test",
            now: new Date(now),
          }),
        );
      if (entries.length === 0) {
        await assert.rejects(run, expectAppError(404, "order_not_found"));
        return;
      }
      const r = await run();
      const refunded = Math.min(100, (w.refunded.get(orderId) ?? 0) + (op.amount ?? 100));
      w.refunded.set(orderId, refunded);
      const orderPoints = entries.reduce((s, e) => s + e.points, 0);
      const before = entries.reduce((s, e) => s + e.reversed, 0);
      // Exact: the order's reversed points reach floor(orderPoints × refunded share), never less than before.
      const target = Math.floor((orderPoints * refunded) / 100);
      let unrecovered = 0;
      for (const { entry, points } of planRefund(entries, refunded / 100)) {
        assert.ok(points <= entry.points - entry.reversed, "a refund never reverses more than an entry has left");
        unrecovered += w.model[entry.customer]!.reverse(entry, points, now);
      }
      const afterwards = entries.reduce((s, e) => s + e.reversed, 0);
      assert.equal(afterwards, Math.max(before, target), "order reversed = max(before, floor(points × share))");
      assert.deepEqual(
        {
          orderPoints: r.orderPoints,
          pointsReversed: r.pointsReversed,
          totalReversed: r.totalReversed,
          unrecovered: r.unrecovered,
        },
        { orderPoints, pointsReversed: afterwards - before, totalReversed: afterwards, unrecovered },
        "refund outcome",
      );
      return;
    }
    case "wait":
      w.now += op.ms;
      return;
    case "waitUntil": {
      const target =
        op.what === "recalc"
          ? m.recalcAt
          : Math.min(
              ...m.lots.filter((l) => l.remaining > 0 && l.expires !== null && l.expires > now).map((l) => l.expires!),
            );
      if (Number.isFinite(target) && target + op.offset > now) w.now = target + op.offset;
      return;
    }
  }
}

/** Records a reversible entry written by a step, and marks its lot (an earn's) as its own. */
function logEntry(
  w: World,
  customer: number,
  entryJson: string,
  type: "earn" | "spend",
  points: number,
  now: number,
  orderId: string | null,
) {
  const id = JSON.parse(entryJson).id as string;
  if (type === "earn") w.model[customer]!.lots.at(-1)!.entry = id;
  w.log.push({ id, customer, type, points, at: now, orderId, reversed: 0 });
}

const time = (v: Date | string | null) => (v === null ? null : new Date(v).getTime());

async function checkInvariants(w: World, where: string) {
  // Reversals: the points requested over an entry's reversals never exceed it, and are the model's.
  const reversed = await prisma.$queryRawUnsafe<{ id: string; points: number; requested: number }[]>(
    `SELECT e.id::text AS id, e.points, sum((r.metadata->>'requested')::int)::int AS requested
     FROM "LedgerEntry" e JOIN "LedgerEntry" r ON r."reversesId" = e.id
     WHERE e."programId" = $1::uuid GROUP BY e.id, e.points`,
    w.programId,
  );
  for (const e of reversed) assert.ok(e.requested <= Math.abs(e.points), `${where}: reversals of ${e.id} within it`);
  assert.deepEqual(
    Object.fromEntries(reversed.map((e) => [e.id, e.requested]).sort()),
    Object.fromEntries(
      w.log
        .filter((e) => e.reversed > 0)
        .map((e) => [e.id, e.reversed])
        .sort(),
    ),
    `${where}: points requested per reversed entry = model`,
  );
  for (const [i, customerId] of w.customerIds.entries()) {
    const m = w.model[i]!;
    const [row] = await prisma.$queryRawUnsafe<
      {
        balance: number;
        tierStatus: string;
        currentTierId: string | null;
        carryTierId: string | null;
        currentTierPoints: number;
        carryTierPoints: number;
        tierChangedAt: Date | string | null;
        recalculationDate: Date | string | null;
        ledger: number;
        entries: number;
        earn: number;
        spend: number;
        expire: number;
        reversal: number;
        other: number;
        lots: number;
        badLots: number;
        negativeAfter: number;
      }[]
    >(
      `SELECT l.balance, l."tierStatus", ct."currentTierId", ct."carryTierId", ct."currentTierPoints", ct."carryTierPoints",
              ct."tierChangedAt", ct."recalculationDate",
              (SELECT coalesce(sum(points), 0)::int FROM "LedgerEntry" e WHERE e."customerId" = l."customerId") AS ledger,
              (SELECT count(*)::int FROM "LedgerEntry" e WHERE e."customerId" = l."customerId") AS entries,
              (SELECT coalesce(sum(points) FILTER (WHERE type = 'earn'), 0)::int FROM "LedgerEntry" e WHERE e."customerId" = l."customerId") AS earn,
              (SELECT coalesce(sum(points) FILTER (WHERE type = 'spend'), 0)::int FROM "LedgerEntry" e WHERE e."customerId" = l."customerId") AS spend,
              (SELECT coalesce(sum(points) FILTER (WHERE type = 'expire'), 0)::int FROM "LedgerEntry" e WHERE e."customerId" = l."customerId") AS expire,
              (SELECT coalesce(sum(points) FILTER (WHERE type = 'reversal'), 0)::int FROM "LedgerEntry" e WHERE e."customerId" = l."customerId") AS reversal,
              (SELECT count(*) FILTER (WHERE type NOT IN ('earn', 'spend', 'expire', 'reversal'))::int FROM "LedgerEntry" e WHERE e."customerId" = l."customerId") AS other,
              (SELECT count(*) FILTER (WHERE "balanceAfter" < 0)::int FROM "LedgerEntry" e WHERE e."customerId" = l."customerId") AS "negativeAfter",
              (SELECT coalesce(sum(remaining), 0)::int FROM "PointLot" p WHERE p."customerId" = l."customerId") AS lots,
              (SELECT count(*)::int FROM "PointLot" p JOIN "LedgerEntry" e ON e.id = p."ledgerEntryId"
                WHERE p."customerId" = l."customerId"
                  AND (p.remaining < 0 OR p.remaining > e.points OR e.points <= 0 OR p."createdAt" <> e."createdAt"
                       OR p."expiresAt" IS DISTINCT FROM e."expiresAt")) AS "badLots"
       FROM "LoyaltyData" l JOIN "CustomerTier" ct ON ct."customerId" = l."customerId"
       WHERE l."customerId" = $1::uuid`,
      customerId,
    );
    assert.ok(row, `${where}: customer ${i} exists`);
    const ctx = `${where}, customer ${i}`;
    // The ledger and the lots.
    assert.ok(row.balance >= 0, `${ctx}: balance ≥ 0`);
    assert.equal(row.balance, row.ledger, `${ctx}: balance = sum of ledger points`);
    assert.equal(row.lots, row.balance, `${ctx}: sum of PointLot.remaining = balance`);
    assert.equal(row.badLots, 0, `${ctx}: every lot is within 0..its entry's points, with its entry's dates`);
    assert.equal(row.negativeAfter, 0, `${ctx}: no entry's balanceAfter is negative`);
    assert.equal(row.other, 0, `${ctx}: only earn, spend, expire and reversal entries`);
    assert.equal(row.balance, m.balance, `${ctx}: balance = model`);
    assert.deepEqual(
      { earn: row.earn, spend: row.spend, expire: row.expire, reversal: row.reversal },
      m.sums,
      `${ctx}: ledger totals by type = model`,
    );
    assert.equal(row.entries, m.entries, `${ctx}: number of ledger entries = model`);
    const lots = await prisma.$queryRawUnsafe<
      { expiresAt: Date | string | null; createdAt: Date | string; remaining: number }[]
    >(
      `SELECT "expiresAt", "createdAt", sum(remaining)::int AS remaining FROM "PointLot"
       WHERE "customerId" = $1::uuid AND remaining > 0 GROUP BY 1, 2`,
      customerId,
    );
    const key = (expires: number | null, created: number) =>
      `${expires === null ? "never" : iso(expires)} ${iso(created)}`;
    const actualLots = Object.fromEntries(
      lots.map((l) => [key(time(l.expiresAt), time(l.createdAt)!), l.remaining]).sort(),
    );
    const expectedLots: Record<string, number> = {};
    for (const l of m.lots)
      if (l.remaining > 0)
        expectedLots[key(l.expires, l.created)] = (expectedLots[key(l.expires, l.created)] ?? 0) + l.remaining;
    assert.deepEqual(
      actualLots,
      Object.fromEntries(Object.entries(expectedLots).sort()),
      `${ctx}: points left by expiry and age = model (oldest spent first)`,
    );
    // The tier state.
    const tierId = (idx: number) => (idx >= 0 ? w.tierIds[idx]! : null);
    assert.deepEqual(
      {
        currentTier: row.currentTierId,
        carryTier: row.carryTierId,
        currentTierPoints: row.currentTierPoints,
        carryTierPoints: row.carryTierPoints,
        tierStatus: row.tierStatus,
        tierChangedAt: time(row.tierChangedAt),
        recalculationDate: time(row.recalculationDate),
      },
      {
        currentTier: tierId(m.tier),
        carryTier: tierId(m.carry),
        currentTierPoints: m.points,
        carryTierPoints: m.carryPoints,
        tierStatus: m.status,
        tierChangedAt: m.changedAt,
        recalculationDate: m.recalcAt,
      },
      `${ctx}: tier state = model (tiers ${w.tierIds.join(", ")})`,
    );
  }
}

test("ledger, lots and tiers follow the model through random operations", { timeout: 300_000 }, async () => {
  const started = Date.now();
  let steps = 0;
  await fc.assert(
    fc.asyncProperty(
      configArb,
      fc.array(opArb, { minLength: 8, maxLength: MAX_STEPS, size: "max" }),
      async (config, ops) => {
        const w = await setUp(config);
        await checkInvariants(w, "after set-up");
        for (const [i, op] of ops.entries()) {
          const where = `step ${i} ${JSON.stringify(op)} at ${iso(w.now)}`;
          try {
            await step(w, op);
          } catch (err) {
            if (err instanceof Error) err.message = `${where}: ${err.message}`;
            throw err;
          }
          await checkInvariants(w, where);
          steps++;
        }
      },
    ),
    { seed: SEED, numRuns: RUNS, endOnFailure: process.env.FC_SHRINK !== "1", includeErrorInReport: true },
  );
  console.log(`# ${RUNS} runs, ${steps} steps in ${((Date.now() - started) / 1000).toFixed(1)} s (seed ${SEED})`);
});

test(
  "the property can fail: a model that forgets the lazy expiry disagrees with the database",
  { timeout: 60_000 },
  async () => {
    // Guards against a vacuous property: one hand-written sequence where expiry decides the outcome of a spend.
    const w = await setUp({
      tierSet: "standard",
      periodMonths: 12,
      expiryMonths: 1,
      customers: 1,
      start: "2030-01-31T12:00:00.000Z",
    });
    await step(w, { t: "inc", c: 0, points: 100 });
    await step(w, { t: "wait", ms: 40 * DAY });
    await step(w, { t: "inc", c: 0, points: 30 });
    // 130 on the balance, 100 of it expired (Jan 31 + 1 month = Feb 28 ≤ Mar 12): 50 cannot be spent, 30 can.
    await assert.rejects(
      prisma.$transaction((tx) =>
        decreaseBalance(tx, {
          programId: w.programId,
          customerId: w.customerIds[0]!,
          points: 50,
          source: "api",
          actor: "t",
          now: new Date(w.now),
        }),
      ),
      expectAppError(409, "insufficient_balance"),
    );
    await checkInvariants(w, "refused spend");
    await step(w, { t: "dec", c: 0, points: 30 });
    await checkInvariants(w, "spend of the unexpired points");
    assert.equal(w.model[0]!.balance, 0);
    assert.deepEqual(w.model[0]!.sums, { earn: 130, spend: -30, expire: -100, reversal: 0 });
  },
);
