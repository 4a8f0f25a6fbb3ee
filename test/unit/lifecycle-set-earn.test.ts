/**
 * The set earn of a lifecycle sweep (ledger.ts `earnSet`, lifecycle.ts `applySet`: one statement for a batch's earns)
 * writes, customer by customer, what the one-by-one application writes (apply.ts `applyEvaluation` through the one
 * balance change, ledger.ts `changeBalance`), on a real PostgreSQL (in-memory PGlite, every migration applied).
 *
 * Twin programs, loaded alike, swept once at the same instant: one with `setEarn: false` (every occurrence through
 * `changeBalance`), the other as the scheduler sweeps (the set earn). Their rows are compared customer by customer,
 * ids replaced by the order they first appear in: ledger entries (points, balance after, reason, metadata, expiry
 * stamp), lots (expiry, idle days), the balance row (balance, last activity, tier status), the tier row (tier, tier
 * points, when it changed, the period), the `balance.changed`/`tier.changed` events, the occurrence rows' outcomes.
 * The customers cover: a plain earn; a tier factor and a tier reached (tier.changed); a tier period due before the
 * earn (closed first); a condition false (used up, nothing written); a customer with two occurrences in the batch
 * (birthday and anniversary: the second one by one after the set); two campaigns giving points for one occurrence
 * (one by one); a budgeted campaign's occurrence in the same sweep (never batched: its own transaction); a balance at its limit (the batch fails as a whole and is retried occurrence by occurrence, so only
 * that customer is left, on both sides). Run for a rolling expiry rounded to the month and for an inactivity expiry.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { activateCampaign, createCampaign } from "@/lib/domain/campaigns/store";
import type { CampaignBody } from "@/lib/domain/campaigns/definition";
import { fireDueLifecycle } from "@/lib/domain/campaigns/lifecycle";
import { MAX_BALANCE } from "@/lib/domain/ledger";
import { memoryDatabase, type MemoryDatabase } from "../support/pglite-memory";
import { twinCustomer, twinProgram } from "../support/twin-program";

let database: MemoryDatabase;
let prisma: PrismaClient;
let programs = 0;

before(async () => {
  database = await memoryDatabase();
  prisma = database.prisma;
});
after(() => database.close());

const ACTIVATED = new Date("2031-05-19T12:00:00.000Z");
const SWEEP = new Date("2031-05-20T00:01:00.000Z");

/** The customers: email, birthdate, member since, tier (index), tier points, balance, period end. */
const CUSTOMERS = [
  { email: "plain", birthdate: "1990-05-20", since: "2030-01-10", tier: 0, points: 0, balance: 0 },
  { email: "silver-to-gold", birthdate: "1985-05-20", since: "2029-02-01", tier: 1, points: 250, balance: 400 },
  { email: "period-due", birthdate: "1970-05-20", since: "2029-03-01", tier: 2, points: 40, balance: 90, due: true },
  { email: "age-six", birthdate: "2025-05-20", since: "2030-04-01", tier: 0, points: 0, balance: 5 },
  { email: "two-occurrences", birthdate: "1980-05-20", since: "2029-05-20", tier: 0, points: 10, balance: 10 },
  { email: "one-year", birthdate: null, since: "2030-05-20", tier: 0, points: 0, balance: 0 },
  { email: "three-years", birthdate: null, since: "2028-05-20", tier: 1, points: 120, balance: 7 },
  {
    email: "at-the-limit",
    birthdate: "1991-05-20",
    since: "2030-02-02",
    tier: 0,
    points: 0,
    balance: MAX_BALANCE - 50,
  },
];

const body = (b: Partial<CampaignBody> & Pick<CampaignBody, "name" | "trigger" | "effects">): CampaignBody => ({
  conditions: null,
  limits: {},
  schedule: {},
  priority: 0,
  stacking: "stack",
  ...b,
});

async function twin(policy: "rolling" | "inactivity") {
  const { programId, tiers } = await twinProgram(prisma, `set earn twin ${++programs}`, policy);
  for (const c of CUSTOMERS) {
    const id = await twinCustomer(prisma, {
      programId,
      email: c.email,
      since: c.since,
      balance: c.balance,
      tierId: tiers[c.tier]!,
      points: c.points,
      periodEnd: c.due ? "2031-05-01T00:00:00.000Z" : "2031-12-01T00:00:00.000Z",
    });
    if (c.birthdate)
      await prisma.$executeRawUnsafe(
        `INSERT INTO "UserData" ("customerId", "programId", birthdate, "updatedAt") VALUES ($1::uuid, $2::uuid, $3, $4::timestamptz)`,
        id,
        programId,
        c.birthdate,
        c.since,
      );
  }
  await prisma.$transaction(async (tx) => {
    for (const b of [
      body({
        name: "Happy birthday",
        trigger: { lifecycle: "birthday" },
        conditions: { attr: "event.age", op: "gte", value: 18 },
        effects: [{ type: "award_points", points: 100, tierFactor: true }],
      }),
      // Budgeted: never batched (its own transaction, between the batches of the others), never set-wise.
      body({
        name: "Win back",
        trigger: { lifecycle: "inactivity", days: 495 },
        limits: { budgetPoints: 1000 },
        effects: [{ type: "award_points", points: 25, tierFactor: false }],
      }),
      body({
        name: "Anniversary",
        trigger: { lifecycle: "anniversary" },
        // Priorities fix the order the two anniversary campaigns apply in (otherwise by campaign id, random here).
        priority: 2,
        effects: [{ type: "award_points", points: 30 }],
      }),
      body({
        name: "Loyal anniversary",
        trigger: { lifecycle: "anniversary" },
        conditions: { attr: "event.years", op: "gte", value: 2 },
        effects: [{ type: "award_points", points: 20 }],
      }),
    ]) {
      const c = await createCampaign(tx, { programId, body: b, now: ACTIVATED });
      await activateCampaign(tx, { programId, campaignId: c.id, now: ACTIVATED });
    }
  });
  return programId;
}

/** Everything the sweep wrote for each customer, by e-mail, with ids replaced by the order they first appear in. */
async function written(programId: string) {
  const rows = await prisma.$queryRawUnsafe<{ email: string; rows: unknown }[]>(
    `SELECT c.email,
       jsonb_build_object(
         'entries', (SELECT jsonb_agg(to_jsonb(e) - 'programId' - 'customerId' ORDER BY e."createdAt", e.points, e.reason)
                     FROM "LedgerEntry" e WHERE e."customerId" = c.id),
         'lots', (SELECT jsonb_agg(to_jsonb(l) - 'id' - 'programId' - 'customerId' ORDER BY l."createdAt", l.remaining)
                  FROM "PointLot" l WHERE l."customerId" = c.id),
         'balance', (SELECT to_jsonb(l) - 'programId' - 'customerId' - 'loyaltyCustomerId' - 'createdAt' FROM "LoyaltyData" l
                     WHERE l."customerId" = c.id),
         'tier', (SELECT to_jsonb(ct) - 'programId' - 'customerId' || jsonb_build_object('tier', t.name)
                  FROM "CustomerTier" ct LEFT JOIN "Tier" t ON t.id = ct."currentTierId" WHERE ct."customerId" = c.id),
         'events', (SELECT jsonb_agg(jsonb_build_object('type', v.type, 'data', v.data, 'at', v."createdAt") ORDER BY v.sequence)
                    FROM "Event" v WHERE v."programId" = c."programId" AND v.data->>'customerId' = c.id::text),
         'occurrences', (SELECT jsonb_agg(jsonb_build_object('occurrence', o.occurrence, 'campaign', k.name,
                                                             'outcome', o.outcome, 'at', o.at)
                                          ORDER BY o.occurrence, k.name)
                         FROM "LifecycleOccurrence" o JOIN "Campaign" k ON k.id = o."campaignId"
                         WHERE o."customerId" = c.id)) AS rows
     FROM "Customer" c WHERE c."programId" = $1::uuid ORDER BY c.email`,
    programId,
  );
  const ids = new Map<string, string>();
  const text = JSON.stringify(rows.map((r) => [r.email.replace(/@.*/, ""), r.rows])).replace(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
    (id) => {
      if (!ids.has(id)) ids.set(id, `id${ids.size}`);
      return ids.get(id)!;
    },
  );
  return JSON.parse(text) as [string, Record<string, unknown>][];
}

for (const policy of ["rolling", "inactivity"] as const) {
  test(`a lifecycle sweep's set earn writes what the one-by-one earns write (${policy} expiry)`, async () => {
    const reference = await twin(policy);
    const set = await twin(policy);
    // The balance at its limit fails its batch, which is retried one by one: that occurrence alone fails.
    await assert.rejects(fireDueLifecycle(prisma, { programId: reference, now: SWEEP, setEarn: false }));
    await assert.rejects(fireDueLifecycle(prisma, { programId: set, now: SWEEP }));
    const [a, b] = [await written(reference), await written(set)];
    assert.deepEqual(b, a);

    // And what they wrote is what the campaigns say (not merely equal on both sides).
    const of = (email: string) => b.find(([e]) => e === email)![1] as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const earned = (email: string) =>
      ((of(email).entries ?? []) as { type: string; points: number; reason: string }[])
        .filter((e) => e.type === "earn")
        .map((e) => `${e.reason} ${e.points}`)
        .sort();
    // 495 days after joining on 10 January 2030 with no activity since: 20 May 2031, the birthday's day.
    assert.deepEqual(earned("plain"), ["campaign: Happy birthday 100", "campaign: Win back 25"]);
    const [budget] = await prisma.$queryRawUnsafe<{ used: number }[]>(
      `SELECT "budgetUsed" AS used FROM "Campaign" WHERE "programId" = $1::uuid AND name = 'Win back'`,
      set,
    );
    assert.equal(budget!.used, 25);
    assert.deepEqual(earned("silver-to-gold"), ["campaign: Happy birthday 150"]);
    assert.equal(of("silver-to-gold").tier.tier, "Gold");
    assert.deepEqual(
      (of("silver-to-gold").events as { type: string }[]).map((e) => e.type),
      ["balance.changed", "tier.changed"],
    );
    assert.notEqual(of("period-due").tier.recalculationDate, "2031-05-01T00:00:00+00:00");
    assert.deepEqual(earned("age-six"), []);
    assert.equal((of("age-six").occurrences as unknown[]).length, 1);
    assert.deepEqual(earned("two-occurrences"), [
      "campaign: Anniversary 30",
      "campaign: Happy birthday 100",
      "campaign: Loyal anniversary 20",
    ]);
    assert.deepEqual(earned("one-year"), ["campaign: Anniversary 30"]);
    // Silver's factor 1.5 (tierFactor is on unless a campaign turns it off).
    assert.deepEqual(earned("three-years"), ["campaign: Anniversary 45", "campaign: Loyal anniversary 30"]);
    assert.deepEqual(earned("at-the-limit"), []);
    assert.equal(of("at-the-limit").occurrences, null);
    const lot = (of("plain").lots as { expiresAt: string | null; idleDays: number | null }[])[0]!;
    // 12 months from 20 May 2031, rounded to the end of that month (the instant May 2032 ends, UTC program).
    if (policy === "rolling") assert.deepEqual([lot.expiresAt, lot.idleDays], ["2032-06-01T00:00:00+00:00", null]);
    else assert.deepEqual([lot.expiresAt, lot.idleDays], [null, 200]);
  });
}
