import "server-only";
import { empty, int, params, raw, sql } from "@/lib/db/sql";
import { abortUnless, isLostRace } from "@/lib/db/statement";
import type { RawQueries } from "@/lib/db/types";
import type { OutcomeSlot } from "@/lib/db/keyed-statement";
import { MAX_BALANCE, tierCtes } from "../ledger";
import { campaignBalanceChangedData } from "../sql";
import { idleDaysSql, stampedExpirySql } from "../expiry-rules";
import { budgetCtes, usesCte, type EventPlan } from "./event-write";

/**
 * Several customers' keyed events in ONE statement: the set form of the hot path's event write (event-write.ts
 * `eventWriteOf`, around ledger.ts `changeCtes` with `entries`, with the same budget and use CTEs, inside
 * keyed-statement.ts `keyedStatement`). A statement's fixed cost (its executor start-up over ~50 plan nodes, its end,
 * its commit and round trip) is most of what an event costs the database, and here it is paid once for the batch
 * (bench/README.md "Events written together").
 *
 * It writes, for each event, exactly the rows its own statement would: the balance and tier rows updated, one ledger
 * entry, lot and `balance.changed` per campaign with points, a `tier.changed` when the tier moves, the event in the
 * event log, and the Idempotency-Key's record with the answer; and it answers each event's body as its own statement
 * would. It acts only when every event would have acted there, cleanly: no earlier record for any key, every balance
 * and tier row still the version the statement read, no tier period or referral due, no balance past the maximum,
 * every use counted and every budget able to give its events' points, one event per customer. Otherwise it fails as a whole (`abortUnless`), nothing is written, and the caller
 * runs each event in its own statement, which settles whatever was the matter (lib/api/event-batches.ts).
 */

const BATCH = params(["programId", "events", "entries", "budgets", "uses"] as const);
const b = BATCH.sql;

/** One event of a batch: its key's slot and its plan (`eventPlan`, `batchable`). */
export interface BatchedEvent {
  slot: OutcomeSlot;
  plan: EventPlan;
}

/** Whether an event can go in a batch: keyed, with points, kept in the event log (not an earning flow's run). */
export const batchable = (slot: OutcomeSlot | null, plan: EventPlan): slot is OutcomeSlot =>
  slot !== null && plan.total > 0 && plan.shape.log;

/** The statement of a batch, with the budget and use parts only when some event has them (as `EventShape`). */
const batchSql = ({ budgets, uses }: { budgets: boolean; uses: boolean }) =>
  sql`WITH ev AS (
  SELECT * FROM jsonb_to_recordset(${b.events}::jsonb) AS x(i int, "customerId" uuid, "scopeId" uuid, key text,
    fingerprint text, "eventId" uuid, type text, "occurredAt" timestamptz, "orderId" text, attributes jsonb, outcome jsonb,
    "idempotencyKey" text, actor text, total int, head text, tail text, now timestamptz)
), ent AS (
  SELECT x.*, coalesce(sum(x.points) OVER (PARTITION BY x.i ORDER BY x.ord ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), 0) AS later
  FROM jsonb_to_recordset(${b.entries}::jsonb) AS x(i int, ord int, id uuid, points int, reason text, metadata jsonb)
), prior AS (
  SELECT 1 FROM ev JOIN "IdempotencyRecord" r ON r."programId" = ${b.programId}::uuid AND r."apiKeyId" = ev."scopeId" AND r.key = ev.key
), cur AS (
  SELECT ev.i, ev."customerId" AS customer, ev.total AS points, ev.now AS at, l.xmin AS lv, ct.xmin AS tv, l.balance,
         l."tierStatus", ct."currentTierId", ct."currentTierPoints", ct."recalculationDate"
  FROM ev
    JOIN "LoyaltyData" l ON l."programId" = ${b.programId}::uuid AND l."customerId" = ev."customerId"
    JOIN "CustomerTier" ct ON ct."programId" = l."programId" AND ct."customerId" = l."customerId"
  WHERE NOT EXISTS (SELECT 1 FROM prior)
), ${tierCtes({ programId: sql`${b.programId}::uuid`, tier: sql`true`, points: sql`cur.points`, key: sql`cur.customer` })}, upd AS (
  -- changeCtes' guards: the row the statement read, no tier period or referral due (the locked path settles those),
  -- the balance within bounds. An event that fails one is missing here, and the batch fails as a whole.
  UPDATE "LoyaltyData" l SET balance = l.balance + cur.points, "updatedAt" = cur.at, "lastActivityAt" = cur.at,
         "tierStatus" = coalesce(tier.status, l."tierStatus")
  FROM cur JOIN tier ON tier.customer = cur.customer
  WHERE l."programId" = ${b.programId}::uuid AND l."customerId" = cur.customer AND l.xmin = cur.lv
    AND NOT coalesce(cur."recalculationDate" <= cur.at, false)
    AND NOT EXISTS (
      SELECT 1 FROM "Referral" r JOIN "Program" rp ON rp.id = r."programId"
      WHERE r."referredId" = cur.customer AND r."programId" = ${b.programId}::uuid AND r."completedAt" IS NULL
        AND cur.points >= rp."referralMinEarnPoints")
    AND l.balance::bigint + cur.points BETWEEN 0 AND ${int(MAX_BALANCE)}
  RETURNING l."customerId", l.balance
), program AS (
  SELECT pr.* FROM "Program" pr WHERE pr.id = ${b.programId}::uuid
), e AS (
  INSERT INTO "LedgerEntry" (id, "programId", "customerId", type, points, "balanceAfter", reason, source, actor,
                             "idempotencyKey", metadata, "earningFlowId", "orderId", "reversesId", "createdAt", "expiresAt")
  SELECT ent.id, ${b.programId}::uuid, cur.customer, 'earn', ent.points, upd.balance - ent.later, ent.reason, 'api', ev.actor,
         ev."idempotencyKey", ent.metadata, NULL::uuid, ev."orderId", NULL::uuid, cur.at, ${raw(stampedExpirySql("pr", "cur.at"))}
  FROM ent JOIN ev ON ev.i = ent.i JOIN cur ON cur.i = ent.i JOIN upd ON upd."customerId" = cur.customer
    CROSS JOIN program pr
  ORDER BY ent.i, ent.ord
  RETURNING *
), lot AS (
  INSERT INTO "PointLot" ("programId", "customerId", "ledgerEntryId", remaining, "createdAt", "expiresAt", "idleDays")
  SELECT e."programId", e."customerId", e.id, e.points, e."createdAt", e."expiresAt", ${raw(idleDaysSql("pr"))}
  FROM e CROSS JOIN program pr
  RETURNING 1
), ctu AS (
  UPDATE "CustomerTier" ct SET "currentTierPoints" = tier.points, "currentTierId" = tier.tier_id,
         "tierChangedAt" = CASE WHEN tier.tier_id IS DISTINCT FROM cur."currentTierId" THEN cur.at ELSE ct."tierChangedAt" END
  FROM tier JOIN cur ON cur.customer = tier.customer
  WHERE ct."programId" = ${b.programId}::uuid AND ct."customerId" = cur.customer AND ct.xmin = cur.tv
    AND EXISTS (SELECT 1 FROM upd WHERE upd."customerId" = cur.customer)
  RETURNING ct."customerId"
), event AS (
  -- Each customer's as its own statement orders them: its entries' balance.changed in order, then its tier.changed.
  INSERT INTO "Event" ("programId", type, data, "createdAt")
  SELECT x."programId", x.type, x.data, x."createdAt" FROM (
    SELECT e."customerId", 0 AS kind, e."balanceAfter" AS ord, e."programId", 'balance.changed' AS type,
           ${raw(campaignBalanceChangedData("e"))} AS data, e."createdAt"
    FROM e
    UNION ALL
    SELECT cur.customer, 1, 0, ${b.programId}::uuid, 'tier.changed',
           jsonb_build_object('customerId', cur.customer, 'fromTierId', cur."currentTierId", 'toTierId', tier.tier_id,
                              'tierStatus', tier.status),
           cur.at
    FROM tier JOIN cur ON cur.customer = tier.customer
    WHERE tier.tier_id IS DISTINCT FROM cur."currentTierId" AND EXISTS (SELECT 1 FROM ctu WHERE ctu."customerId" = cur.customer)
  ) x
  ORDER BY x."customerId", x.kind, x.ord
  RETURNING 1
), logged AS (
  INSERT INTO "CustomerEvent" (id, "programId", "customerId", type, "occurredAt", "orderId", attributes, outcome,
                               "idempotencyKey", "createdAt")
  SELECT ev."eventId", ${b.programId}::uuid, ev."customerId", ev.type, ev."occurredAt", ev."orderId", ev.attributes,
         ev.outcome, ev."idempotencyKey", ev.now
  FROM ev JOIN upd ON upd."customerId" = ev."customerId"
  RETURNING 1
), stored AS (
  INSERT INTO "IdempotencyRecord" ("programId", "apiKeyId", key, "requestHash", status, body, "customerId")
  SELECT ${b.programId}::uuid, ev."scopeId", ev.key, ev.fingerprint, 200, ev.head || upd.balance || ev.tail, ev."customerId"
  FROM ev JOIN upd ON upd."customerId" = ev."customerId"
  RETURNING 1
), acted AS (
  SELECT 1 AS one WHERE (SELECT count(*) FROM upd) = (SELECT count(*) FROM ev)${
    uses
      ? sql`
), ${usesCte(
          sql`(SELECT * FROM jsonb_to_recordset(${b.uses}::jsonb) AS x(id uuid, "window" text, cap int, customer uuid))`,
          sql`${b.programId}::uuid`,
          sql`EXISTS (SELECT 1 FROM acted)`,
        )}`
      : empty
  }${
    budgets
      ? sql`
), ${budgetCtes(sql`${b.budgets}`, sql`${b.programId}::uuid`, sql`EXISTS (SELECT 1 FROM acted)`)}`
      : empty
  }
)
SELECT chk.ok, a.i, a.body
FROM (SELECT ${abortUnless(sql`(SELECT count(*) FROM upd) = (SELECT count(*) FROM ev)
  AND (SELECT count(DISTINCT "customerId") FROM ev) = (SELECT count(*) FROM ev)
  AND (SELECT count(*) FROM e) = (SELECT count(*) FROM ent)
  AND (SELECT count(*) FROM lot) = (SELECT count(*) FROM ent)
  AND (SELECT count(*) FROM ctu) = (SELECT count(*) FROM ev)
  AND (SELECT count(*) FROM event) >= (SELECT count(*) FROM ent)
  AND (SELECT count(*) FROM logged) = (SELECT count(*) FROM ev)
  AND (SELECT count(*) FROM stored) = (SELECT count(*) FROM ev)
  AND ${uses ? sql`(SELECT count(*) FROM used) = jsonb_array_length(${b.uses}::jsonb)` : sql`jsonb_array_length(${b.uses}::jsonb) = 0`}
  -- The budgets last, as in an event's own statement: their slices stay locked until commit.
  AND ${budgets ? sql`(SELECT count(*) FROM budget) = jsonb_array_length(${b.budgets}::jsonb)` : sql`jsonb_array_length(${b.budgets}::jsonb) = 0`}`)} AS ok) chk
LEFT JOIN (SELECT ev.i, ev.head || upd.balance || ev.tail AS body
           FROM ev JOIN upd ON upd."customerId" = ev."customerId") a ON true`.text;

const STATEMENTS = new Map<string, string>();
const statementOf = (shape: { budgets: boolean; uses: boolean }) => {
  const key = `${+shape.budgets}${+shape.uses}`;
  let text = STATEMENTS.get(key);
  if (!text) STATEMENTS.set(key, (text = batchSql(shape)));
  return text;
};

/**
 * The budgets the batch consumes, one row per campaign (`budgetCtes`' `bud`): its events' points together, from the
 * first one's slice, taking into the slice what the largest of their chunks sets aside beyond its points (budget.ts
 * `budgetChunk`), under the lowest cap they read. The slice and the row guard the sum as they guard one event's points:
 * a budget that cannot give all of it fails the batch, and each event then takes from it alone.
 */
function batchBudgets(batch: readonly BatchedEvent[]) {
  const by = new Map<string, { id: string; points: number; cap: number; slice: number; ahead: number }>();
  for (const { plan } of batch)
    for (const b of plan.budgets) {
      const sum = by.get(b.id);
      if (!sum) by.set(b.id, { id: b.id, points: b.points, cap: b.cap, slice: b.slice, ahead: b.chunk - b.points });
      else {
        sum.points += b.points;
        sum.cap = Math.min(sum.cap, b.cap);
        sum.ahead = Math.max(sum.ahead, b.chunk - b.points);
      }
    }
  return [...by.values()]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(({ ahead, ...b }) => ({ ...b, chunk: b.points + ahead }));
}

/**
 * Writes the events of one program (distinct customers, each `batchable`) in one statement: each event's answer body
 * by its index, or null when the batch did not act (an earlier record, something due, a row changed under it: see
 * above), and then nothing was written. Throws what the statement threw otherwise (a twin's key committed first, a
 * lost connection).
 */
export async function writeEventBatch(db: RawQueries, programId: string, batch: readonly BatchedEvent[]) {
  const events: string[] = [];
  const entries: string[] = [];
  batch.forEach(({ slot, plan }, i) => {
    const n = plan.named;
    // The attributes and the outcome are JSON text already: spliced in, not encoded again.
    events.push(
      `${JSON.stringify({
        i,
        customerId: n.customerId,
        scopeId: slot.scopeId,
        key: slot.key,
        fingerprint: slot.fingerprint,
        eventId: n.eventId,
        type: n.type,
        occurredAt: n.occurredAt,
        orderId: n.orderId,
        idempotencyKey: n.idempotencyKey,
        actor: n.actor,
        total: n.total,
        head: n.head,
        tail: n.tail,
        now: n.now,
      }).slice(0, -1)},"attributes":${n.attributes},"outcome":${n.outcome}}`,
    );
    for (const entry of plan.entries) entries.push(JSON.stringify({ i, ...entry }));
  });
  const budgets = batchBudgets(batch);
  const uses = batch.flatMap(({ plan }) => plan.uses.map((u) => ({ ...u, customer: plan.named.customerId })));
  let rows: { ok: number; i: number | null; body: string | null }[];
  try {
    rows = await db.$queryRawUnsafe(
      statementOf({ budgets: budgets.length > 0, uses: uses.length > 0 }),
      ...BATCH.values({
        programId,
        events: `[${events.join(",")}]`,
        entries: `[${entries.join(",")}]`,
        budgets: JSON.stringify(budgets),
        uses: JSON.stringify(uses),
      }),
    );
  } catch (err) {
    if (isLostRace(err)) return null;
    throw err;
  }
  const bodies = new Map(rows.map((r) => [r.i, r.body]));
  return batch.map((_, i) => bodies.get(i) ?? null);
}
