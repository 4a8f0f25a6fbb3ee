/**
 * Customer events written together (campaigns/event-batch.ts `writeEventBatch`: one statement for several customers'
 * keyed events) write, customer by customer, what each event's own statement writes (one-statement.ts `eventSql`
 * under keyed-statement.ts `runStatement`, the hot path's write), and answer the same bodies, on a real PostgreSQL
 * (in-memory PGlite, every migration applied).
 *
 * Twin programs, loaded alike, sent the same events at the same instant: one event by one through its own statement,
 * the other as one batch. Compared with ids replaced by the order they first appear in: ledger entries (points,
 * balance after, reason, campaign metadata, expiry stamp), lots, the balance and tier rows, the `balance.changed` and
 * `tier.changed` events in sequence order, the event log's row and the Idempotency-Key's record. The customers cover:
 * two stacking campaigns on one event, a tier factor and a tier reached (tier.changed), an opening balance. Run for a
 * rolling expiry rounded to the month and for an inactivity expiry.
 *
 * Then the batch's refusals: when any event would not have acted cleanly on its own (its key already used, its
 * balance past the maximum, its tier period due, a second event of its customer), the batch writes nothing at all and answers null, so
 * that each event's own statement settles it.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { activateCampaign, createCampaign, putEventType } from "@/lib/domain/campaigns/store";
import type { CampaignBody } from "@/lib/domain/campaigns/definition";
import { customerEventValues } from "@/lib/domain/campaigns/customer-events";
import type { EventPlan } from "@/lib/domain/campaigns/event-write";
import { writeEventBatch, type BatchedEvent } from "@/lib/domain/campaigns/event-batch";
import { keyedParams, runStatement, type OutcomeSlot, type StatementRow } from "@/lib/db/keyed-statement";
import { eventSql } from "@/lib/api/one-statement";
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

const NOW = new Date("2031-05-20T10:00:00.000Z");
const TYPE = "purchase";
const API_KEY = randomUUID();

/** The customers: email, tier (index), tier points, balance, whether their tier period is due. */
const CUSTOMERS = [
  { email: "plain", tier: 0, points: 0, balance: 0 },
  { email: "silver-to-gold", tier: 1, points: 250, balance: 40 },
  { email: "opening-balance", tier: 0, points: 10, balance: 400 },
];

const body = (b: Partial<CampaignBody> & Pick<CampaignBody, "name" | "effects">): CampaignBody => ({
  trigger: { event: TYPE },
  conditions: null,
  limits: {},
  schedule: {},
  priority: 0,
  stacking: "stack",
  ...b,
});

async function twin(policy: "rolling" | "inactivity") {
  const { programId, tiers } = await twinProgram(prisma, `event batch twin ${++programs}`, policy);
  for (const c of CUSTOMERS)
    await twinCustomer(prisma, {
      programId,
      email: c.email,
      since: "2030-01-01Z",
      balance: c.balance,
      tierId: tiers[c.tier]!,
      points: c.points,
      periodEnd: "2031-12-01Z",
    });
  await prisma.$transaction(async (tx) => {
    await putEventType(tx, {
      programId,
      type: TYPE,
      attributes: { total: { type: "number", required: true }, channel: { type: "string" } },
      now: NOW,
    });
    for (const b of [
      body({
        name: "A point per euro on the web",
        priority: 2,
        conditions: { attr: "event.channel", op: "eq", value: "web" },
        effects: [{ type: "award_points", per: "event.total", rate: 1, round: "down" }],
      }),
      body({
        name: "Fifty on a big order",
        priority: 1,
        conditions: { attr: "event.total", op: "gte", value: 100 },
        effects: [{ type: "award_points", points: 50, tierFactor: false }],
        limits: { perCustomer: { count: 2, window: "day" }, budgetPoints: 10_000 },
      }),
      body({
        name: "In store",
        conditions: { attr: "event.channel", op: "eq", value: "store" },
        effects: [{ type: "award_points", points: 7 }],
      }),
    ]) {
      const c = await createCampaign(tx, { programId, body: b, now: NOW });
      await activateCampaign(tx, { programId, campaignId: c.id, now: NOW });
    }
  });
  return programId;
}

const slotOf = (programId: string): OutcomeSlot => ({
  programId,
  scopeId: API_KEY,
  key: randomUUID(),
  fingerprint: "f".repeat(64),
  legacy: "l".repeat(64),
});

/** Each customer's event decided on the hot path (one snapshot read, the evaluator): its slot and its plan. */
async function plans(programId: string): Promise<BatchedEvent[]> {
  const out: BatchedEvent[] = [];
  for (const c of CUSTOMERS) {
    const plan = await customerEventValues(prisma, {
      programId,
      email: `${c.email}@twin.example.com`,
      type: TYPE,
      occurredAt: null,
      orderId: `order-${c.email}`,
      attributes: { total: 120, channel: "web" },
      actor: `api_key:${API_KEY}`,
      idempotencyKey: `key-${c.email}`,
      dryRun: false,
      now: NOW,
    });
    assert.ok(plan, `${c.email}: the hot path decides the event`);
    out.push({ slot: { ...slotOf(programId), key: `key-${c.email}` }, plan });
  }
  return out;
}

/** An event through its own keyed statement, as the hot path runs it: the body it answers. */
async function alone({ slot, plan }: { slot: OutcomeSlot; plan: EventPlan }) {
  const result = await runStatement(prisma, slot, () =>
    prisma.$queryRawUnsafe<StatementRow[]>(eventSql(plan.shape), ...keyedParams(slot), ...plan.values),
  );
  assert.ok("outcome" in result, `the event's own statement acted (${JSON.stringify(result)})`);
  return result.outcome.body;
}

/** Everything written for each customer, by e-mail, with ids replaced by the order they first appear in. */
async function written(programId: string, bodies: (string | null)[]) {
  const rows = await prisma.$queryRawUnsafe<{ email: string; rows: unknown }[]>(
    `SELECT c.email,
       jsonb_build_object(
         'entries', (SELECT jsonb_agg(to_jsonb(e) - 'programId' - 'customerId' ORDER BY e."createdAt", e."balanceAfter")
                     FROM "LedgerEntry" e WHERE e."customerId" = c.id),
         'lots', (SELECT jsonb_agg(to_jsonb(l) - 'id' - 'programId' - 'customerId' ORDER BY l."createdAt", l.remaining)
                  FROM "PointLot" l WHERE l."customerId" = c.id),
         'balance', (SELECT to_jsonb(l) - 'programId' - 'customerId' - 'loyaltyCustomerId' - 'createdAt' FROM "LoyaltyData" l
                     WHERE l."customerId" = c.id),
         'tier', (SELECT to_jsonb(ct) - 'programId' - 'customerId' || jsonb_build_object('tier', t.name)
                  FROM "CustomerTier" ct LEFT JOIN "Tier" t ON t.id = ct."currentTierId" WHERE ct."customerId" = c.id),
         'events', (SELECT jsonb_agg(jsonb_build_object('type', v.type, 'data', v.data, 'at', v."createdAt") ORDER BY v.sequence)
                    FROM "Event" v WHERE v."programId" = c."programId" AND v.data->>'customerId' = c.id::text),
         'log', (SELECT jsonb_agg(to_jsonb(x) - 'programId' - 'customerId') FROM "CustomerEvent" x WHERE x."customerId" = c.id),
         'key', (SELECT jsonb_agg(jsonb_build_object('key', r.key, 'status', r.status, 'body', r.body::jsonb))
                 FROM "IdempotencyRecord" r WHERE r."customerId" = c.id),
         'uses', (SELECT jsonb_agg(jsonb_build_object('campaign', k.name, 'window', u."window", 'count', u.count))
                  FROM "CampaignUsage" u JOIN "Campaign" k ON k.id = u."campaignId" WHERE u."customerId" = c.id)) AS rows
     FROM "Customer" c WHERE c."programId" = $1::uuid
     UNION ALL
     -- The points each budget gave: its row's count less the room its slices hold (how the room is spread may differ).
     SELECT 'budget ' || k.name, jsonb_build_object('given', k."budgetUsed" - coalesce((SELECT sum(s.room) FROM "CampaignBudgetSlice" s
                                                                                      WHERE s."campaignId" = k.id), 0))
     FROM "Campaign" k WHERE k."programId" = $1::uuid
     ORDER BY 1`,
    programId,
  );
  const ids = new Map<string, string>();
  const text = JSON.stringify([rows.map((r) => [r.email.replace(/@.*/, ""), r.rows]), bodies]).replace(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
    (id) => {
      if (!ids.has(id)) ids.set(id, `id${ids.size}`);
      return ids.get(id)!;
    },
  );
  return JSON.parse(text) as [[string, Record<string, unknown>][], unknown[]];
}

const count = async (programId: string) => {
  const [row] = await prisma.$queryRawUnsafe<{ n: number }[]>(
    `SELECT ((SELECT count(*) FROM "LedgerEntry" WHERE "programId" = $1::uuid) + (SELECT count(*) FROM "Event" WHERE "programId" = $1::uuid)
            + (SELECT count(*) FROM "CustomerEvent" WHERE "programId" = $1::uuid)
            + (SELECT count(*) FROM "IdempotencyRecord" WHERE "programId" = $1::uuid))::int AS n`,
    programId,
  );
  return row!.n;
};

for (const policy of ["rolling", "inactivity"] as const) {
  test(`events written together write and answer what each event's own statement does (${policy} expiry)`, async () => {
    const reference = await twin(policy);
    const batched = await twin(policy);
    const one = await plans(reference);
    const bodiesAlone: (string | null)[] = [];
    for (const event of one) bodiesAlone.push(await alone(event));
    const bodiesTogether = await writeEventBatch(prisma, batched, await plans(batched));
    assert.ok(bodiesTogether, "the batch acted");
    const [a, b] = [await written(reference, bodiesAlone), await written(batched, bodiesTogether)];
    assert.deepEqual(b, a);

    // And what they wrote is what the campaigns say (not merely equal on both sides).
    const of = (email: string) => b[0].find(([e]) => e === email)![1] as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const earned = (email: string) =>
      ((of(email).entries ?? []) as { type: string; points: number; reason: string }[])
        .filter((e) => e.type === "earn")
        .map((e) => `${e.reason} ${e.points}`);
    assert.deepEqual(earned("plain"), [
      "campaign: A point per euro on the web 120",
      "campaign: Fifty on a big order 50",
    ]);
    // Silver's factor 1.5 on the per-euro points (the bonus has tierFactor off); 250 + 230 tier points reach Gold.
    assert.deepEqual(earned("silver-to-gold"), [
      "campaign: A point per euro on the web 180",
      "campaign: Fifty on a big order 50",
    ]);
    assert.equal(of("silver-to-gold").tier.tier, "Gold");
    assert.deepEqual(
      (of("silver-to-gold").events as { type: string }[]).map((e) => e.type),
      ["balance.changed", "balance.changed", "tier.changed"],
    );
    assert.equal(of("opening-balance").balance.balance, 570);
    assert.deepEqual(of("plain").uses, [{ campaign: "Fifty on a big order", window: "2031-05-20", count: 1 }]);
    assert.deepEqual(of("budget Fifty on a big order"), { given: 150 });
    const answer = JSON.parse(JSON.stringify((b[1] as string[])[1]));
    assert.equal(JSON.parse(answer).balance, 270);
    assert.deepEqual(
      JSON.parse(answer).skipped.map((s: { reason: string }) => s.reason),
      ["condition_false"],
    );
  });
}

test("a batch in which any event would not act on its own writes nothing, so that each runs alone", async () => {
  const programId = await twin("rolling");
  const before = await count(programId);

  // Its key already used: the batch does not replay, the event's own statement does.
  let events = await plans(programId);
  await prisma.$executeRawUnsafe(
    `INSERT INTO "IdempotencyRecord" ("programId", "apiKeyId", key, "requestHash", status, body)
     VALUES ($1::uuid, $2::uuid, $3, 'x', 200, '{}')`,
    programId,
    API_KEY,
    events[2]!.slot.key,
  );
  assert.equal(await writeEventBatch(prisma, programId, events), null);
  assert.equal(await count(programId), before + 1);
  await prisma.$executeRawUnsafe(`DELETE FROM "IdempotencyRecord" WHERE "programId" = $1::uuid`, programId);

  // A balance the points would take past the maximum: its own statement refuses (balance_limit).
  events = await plans(programId);
  await prisma.$executeRawUnsafe(
    `UPDATE "LoyaltyData" SET balance = $2 WHERE "customerId" = $1::uuid`,
    String(events[1]!.plan.named.customerId),
    MAX_BALANCE - 100,
  );
  assert.equal(await writeEventBatch(prisma, programId, events), null);
  assert.equal(await count(programId), before);
  await prisma.$executeRawUnsafe(
    `UPDATE "LoyaltyData" SET balance = 40 WHERE "customerId" = $1::uuid`,
    String(events[1]!.plan.named.customerId),
  );

  // A tier period due: the locked path closes it before the earn counts.
  events = await plans(programId);
  await prisma.$executeRawUnsafe(
    `UPDATE "CustomerTier" SET "recalculationDate" = '2031-05-01Z' WHERE "customerId" = $1::uuid`,
    String(events[0]!.plan.named.customerId),
  );
  assert.equal(await writeEventBatch(prisma, programId, events), null);
  assert.equal(await count(programId), before);

  // A budget that cannot give the batch's 150 points (each event alone could take its 50 while they last).
  events = await plans(programId);
  await prisma.$executeRawUnsafe(
    `UPDATE "Campaign" SET "budgetUsed" = 10000 - 120 WHERE "programId" = $1::uuid AND name = 'Fifty on a big order'`,
    programId,
  );
  assert.equal(await writeEventBatch(prisma, programId, events), null);
  assert.equal(await count(programId), before);
  await prisma.$executeRawUnsafe(
    `UPDATE "Campaign" SET "budgetUsed" = 0 WHERE "programId" = $1::uuid AND name = 'Fifty on a big order'`,
    programId,
  );

  // A customer's use at its limit (counted since the decision read it): the use is not counted, the batch refused.
  events = await plans(programId);
  await prisma.$executeRawUnsafe(
    `INSERT INTO "CampaignUsage" ("programId", "campaignId", "customerId", "window", count)
     SELECT $1::uuid, k.id, $2::uuid, '2031-05-20', 2 FROM "Campaign" k
     WHERE k."programId" = $1::uuid AND k.name = 'Fifty on a big order'`,
    programId,
    String(events[0]!.plan.named.customerId),
  );
  assert.equal(await writeEventBatch(prisma, programId, events), null);
  assert.equal(await count(programId), before);
  await prisma.$executeRawUnsafe(`DELETE FROM "CampaignUsage" WHERE "programId" = $1::uuid`, programId);

  // Two events of one customer: the batcher never makes such a batch, and the statement refuses it.
  events = await plans(programId);
  const twice = [
    events[1]!,
    {
      ...events[2]!,
      plan: { ...events[2]!.plan, named: { ...events[2]!.plan.named, customerId: events[1]!.plan.named.customerId } },
    },
  ];
  assert.equal(await writeEventBatch(prisma, programId, twice), null);
  assert.equal(await count(programId), before);
});
