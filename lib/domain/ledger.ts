import "server-only";
import type { Tx } from "@/lib/db/types";
import { empty, int, join, params, raw, sql, type Sql } from "@/lib/db/sql";
import { balanceLimit, insufficientBalance } from "@/lib/errors";
import { KEYED_PARAM_COUNT, keyedStatement, type StatementWrite } from "@/lib/db/keyed-statement";
import { balanceChangedData, campaignBalanceChangedData, ledgerEntryJson } from "./sql";
import { tierRank } from "./tier-ranking";
import { recalculateIfDue } from "./tiers-engine";
import { closeReferral } from "./referrals";
import { lockBalance } from "./balance-lock";
import type { BalanceChange } from "./balance-change";
import { programNow } from "./clock";
import { runLockedWrite } from "./locked-write";
import { abortUnless } from "@/lib/db/statement";
import type { LedgerSource } from "./vocabulary";
import { ACTIVITY_TYPES, idleDaysSql, lotDueSql, stampedExpirySql } from "./expiry-rules";
import { pendingParam, pendingTerms } from "./pending-rules";
import { pendingSettings, writePending } from "./pending-write";

/**
 * The one place a balance changes. Every change is a conditional atomic UPDATE of the balance (which also
 * takes the customer's row lock) plus an immutable ledger entry, its lots, tier points and events in the same
 * statement (`changeCtes`), so balance = sum of entries = sum of lots ≥ 0 holds at every commit, whatever the entry
 * point or interleaving.
 */

/** Postgres int4: balances and points stay below it. */
export const MAX_BALANCE = 2_147_483_647;

/**
 * Points earned (not adjusted or spent) count towards tiers; a matured pending earn whose tier points counted when it
 * was earned (pending.ts) does not count again.
 */
const countsForTier = (c: Pick<BalanceChange, "type" | "points" | "tierCounted">) =>
  c.type === "earn" && c.points > 0 && !c.tierCounted;

export interface BalanceResult {
  balance: number;
  /** The ledger entry as JSON text (API.md §4 shape); `null` for an earn that went pending. */
  entryJson: string;
  entryId: string;
  /** An earn that went pending instead (pending-rules.ts): the pending points as JSON text, API.md §4 shape. */
  pendingJson?: string;
}

/**
 * A balance change as CTEs of one statement (composed by `keyedStatement`, lib/db/keyed-statement.ts, which adds the
 * Idempotency-Key's record): the rule (0 ≤ balance ≤ MAX_BALANCE), the ledger entry, a new lot for points added or
 * the oldest lots consumed for points taken, the tier points of an earn (tier-rules.ts `applyEarn`, here in SQL),
 * the balance.changed and tier.changed events. Every effect depends on `go` and on the balance UPDATE.
 *
 * The statement reads the customer's lots, tier state and caps from its one snapshot, and that is only sound if
 * nothing changed them since: the balance UPDATE therefore also requires that the balance row is the version the
 * snapshot read (its xmin). Every change of lots or balance updates that row, so a concurrent change that committed
 * after the snapshot makes the UPDATE match nothing, and the statement reports `race`. The tier state is guarded
 * the same way by the tier row's xmin (the tier job changes it without the balance): `change_ok` fails the whole
 * statement if that guard stopped the tier update after the balance changed. The caller then takes the locked path
 * (`changeBalance` in a transaction, which locks the row before the statement reads).
 *
 * Two rare cases are left to that locked path too, reported instead of done: points that expired by now must be
 * expired before a spend (`expiry_due`, once per lot), and a tier period that has ended must be closed before an
 * earn counts (`tier_due`, once per period per customer); both run TypeScript rules over several statements.
 * So is a qualifying earn of a customer whose referral is still open (`referral_due`; the system's own earns, the
 * referral points, never qualify): the locked path closes the referral before the statement and rewards both sides
 * after it, in the earn's transaction (referrals.ts `closeReferral`).
 *
 * `p` names SQL expressions (placeholders or subqueries) for the change; `p.points` is signed and non-zero.
 *
 * Two set forms write what this writes for many customers at once: `EARN_SET` (below, a lifecycle sweep's earns) and
 * campaigns/event-batch.ts (customer events written together). A change here is made there too; their tests
 * (test/unit/lifecycle-set-earn.test.ts, test/unit/event-batch.test.ts) compare their rows with this statement's.
 */
export interface ChangeSql {
  programId: Sql;
  customerId: Sql;
  points: Sql;
  type: Sql;
  reason: Sql;
  source: Sql;
  actor: Sql;
  idempotencyKey: Sql;
  metadata: Sql;
  earningFlowId: Sql;
  /** Text; NULL (the default) for changes without an order. */
  orderId?: Sql;
  /** Uuid; NULL (the default) unless the change is a reversal. */
  reversesId?: Sql;
  now: Sql;
  /** Whether the change counts towards tiers (an earn of points). */
  tier: Sql;
  /**
   * Text: whether an earn may go pending (pending-rules.ts `PendingOption`): NULL never, 'program' the program's
   * setting, 'until_confirmed', or a number of days. An earn that goes pending is handed to the locked path
   * (`pending_due`), which writes the pending points instead (`changeBalance`). Absent: never.
   */
  pending?: Sql;
  /**
   * What the change can be, known before the statement runs: `add` (points > 0) or `take` (points < 0), and
   * whether it counts towards tiers. The statement leaves out the parts that cannot apply (lots consumed, the tier
   * rule, the expiry and referral checks): PostgreSQL opens and locks every table and index a plan names on every
   * execution, whether the part runs or not. A change that turns out not to fit its shape fails `change_ok`, as a
   * race does, and takes the locked path.
   */
  shape: ChangeShape;
  /**
   * Several ledger entries for one change of the balance (a customer event's campaigns, campaigns/event-write.ts):
   * a relation with columns `ord` (int, the entries' order), `id` (uuid), `points` (int > 0), `reason` (text) and
   * `metadata` (jsonb) whose points add up to `points`. The balance moves once; each entry gets its own lot, its
   * `balance.changed` event and the balance after it; `reason` and `metadata` above are unused, and `change` has no
   * entry (NULL `entry`, `entry_id`). Only for an `add` shape.
   */
  entries?: Sql;
}

export interface ChangeShape {
  sign: "add" | "take";
  tier: boolean;
}

/** The shape of a change whose points and type are known (the hot path's). */
export const shapeOf = (c: Pick<BalanceChange, "type" | "points">): ChangeShape => ({
  sign: c.points > 0 ? "add" : "take",
  tier: countsForTier(c),
});

export const changeCtes = (p: ChangeSql): Sql => {
  const adds = p.shape.sign === "add";
  const takes = p.shape.sign === "take";
  const tiers = p.shape.tier;
  // What the locked path must settle first (see above): points due to expire before a spend; a tier period due to
  // close, or a referral to complete, before an earn.
  const dueChecks = [
    takes &&
      sql`
    WHEN ${p.points} < 0 AND EXISTS (
      SELECT 1 FROM "PointLot" d, clock WHERE d."programId" = ${p.programId} AND d."customerId" = ${p.customerId}
        AND ${raw(lotDueSql("d", "clock.at", "cur.active"))}) THEN 'expiry_due'`,
    tiers &&
      p.pending &&
      sql`
    WHEN ${p.tier} AND ${p.pending} IS NOT NULL AND ${p.pending} <> '0' AND (${p.pending} <> 'program' OR EXISTS (
      SELECT 1 FROM "Program" pp WHERE pp.id = ${p.programId} AND (pp."pendingUntilConfirmed" OR pp."pendingDays" > 0)))
      THEN 'pending_due'`,
    tiers &&
      sql`
    WHEN ${p.tier} AND cur."recalculationDate" <= (SELECT at FROM clock) THEN 'tier_due'
    WHEN ${p.tier} AND ${p.source} <> 'system' AND EXISTS (
      SELECT 1 FROM "Referral" r JOIN "Program" rp ON rp.id = r."programId"
      WHERE r."referredId" = ${p.customerId} AND r."programId" = ${p.programId} AND r."completedAt" IS NULL
        AND ${p.points} >= rp."referralMinEarnPoints") THEN 'referral_due'`,
  ].filter((check): check is Sql => !!check);
  return sql`clock AS (
  SELECT ${p.now} AS at
), cur AS (
  ${
    tiers
      ? sql`SELECT l.xmin AS lv, ct.xmin AS tv, l.balance, l."lastActivityAt" AS active, l."tierStatus", ct."currentTierId", ct."currentTierPoints", ct."recalculationDate"
  FROM "LoyaltyData" l JOIN "CustomerTier" ct ON ct."programId" = l."programId" AND ct."customerId" = l."customerId"`
      : sql`SELECT l.xmin AS lv, l.balance, l."lastActivityAt" AS active FROM "LoyaltyData" l`
  }
  WHERE l."programId" = ${p.programId} AND l."customerId" = ${p.customerId} AND EXISTS (SELECT 1 FROM go)
), due AS (
  SELECT ${
    dueChecks.length
      ? sql`CASE${join(dueChecks, "")}
  END`
      : sql`NULL::text`
  } AS why
  FROM cur
), ${tiers ? sql`${tierCtes(p)}, ` : empty}upd AS (
  UPDATE "LoyaltyData" l SET balance = l.balance + ${p.points}, "updatedAt" = ${p.now},
         "lastActivityAt" = CASE WHEN ${p.type} IN (${raw(ACTIVITY_TYPES.map((t) => `'${t}'`).join(", "))}) THEN ${p.now} ELSE l."lastActivityAt" END${
           tiers
             ? sql`,
         "tierStatus" = coalesce((SELECT status FROM tier), l."tierStatus")`
             : empty
         }
  FROM cur, due
  WHERE l."programId" = ${p.programId} AND l."customerId" = ${p.customerId} AND l.xmin = cur.lv AND due.why IS NULL
    AND l.balance::bigint + ${p.points} BETWEEN 0 AND ${int(MAX_BALANCE)}
  RETURNING l.balance
), program AS (
  -- The expiry rule (expiry-rules.ts) stamps the lot made now: its fixed expiry, or its idle days (inactivity).
  SELECT ${raw(stampedExpirySql("pr", "clock.at"))} AS expires, ${raw(idleDaysSql("pr"))} AS idle_days
  FROM "Program" pr CROSS JOIN clock WHERE pr.id = ${p.programId}
), e AS (${
    p.entries
      ? sql`
  INSERT INTO "LedgerEntry" (id, "programId", "customerId", type, points, "balanceAfter", reason, source, actor,
                             "idempotencyKey", metadata, "earningFlowId", "orderId", "reversesId", "createdAt", "expiresAt")
  SELECT x.id, ${p.programId}, ${p.customerId}, ${p.type}, x.points, upd.balance - x.later, x.reason, ${p.source}, ${p.actor},
         ${p.idempotencyKey}, x.metadata, ${p.earningFlowId}, ${p.orderId ?? sql`NULL::text`}, NULL::uuid, clock.at,
         program.expires
  FROM upd CROSS JOIN program CROSS JOIN clock CROSS JOIN (
    SELECT x.*, coalesce(sum(x.points) OVER (ORDER BY x.ord ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), 0) AS later
    FROM ${p.entries} x) x
  ORDER BY x.ord
  RETURNING *`
      : sql`
  INSERT INTO "LedgerEntry" ("programId", "customerId", type, points, "balanceAfter", reason, source, actor,
                             "idempotencyKey", metadata, "earningFlowId", "orderId", "reversesId", "createdAt", "expiresAt")
  SELECT ${p.programId}, ${p.customerId}, ${p.type}, ${p.points}, upd.balance, ${p.reason}, ${p.source}, ${p.actor},
         ${p.idempotencyKey}, ${p.metadata}, ${p.earningFlowId}, ${p.orderId ?? sql`NULL::text`}, ${p.reversesId ?? sql`NULL::uuid`}, clock.at,
         CASE WHEN ${p.points} > 0 THEN program.expires END
  FROM upd CROSS JOIN program CROSS JOIN clock
  RETURNING *`
  }
), lot AS (${
    adds
      ? sql`
  INSERT INTO "PointLot" ("programId", "customerId", "ledgerEntryId", remaining, "createdAt", "expiresAt", "idleDays")
  SELECT e."programId", e."customerId", e.id, e.points, e."createdAt", e."expiresAt", program.idle_days
  FROM e CROSS JOIN program WHERE e.points > 0
  RETURNING 1`
      : sql` SELECT 1 AS one WHERE false`
  }
), ${
    takes
      ? sql`take AS (
  -- The oldest lots first (those that expire first, then by age) until the points taken are covered; a reversal
  -- takes the reversed entry's own lot before any other.
  SELECT lots.id, least(lots.remaining, -(${p.points}) - (lots.running - lots.remaining)) AS used
  FROM (
    SELECT o.id, o.remaining,
           sum(o.remaining) OVER (ORDER BY ${p.reversesId ? sql`o."ledgerEntryId" IS NOT DISTINCT FROM ${p.reversesId} DESC, ` : empty}coalesce(o."expiresAt", 'infinity'::timestamptz), o."createdAt", o.id) AS running
    FROM "PointLot" o
    WHERE o."programId" = ${p.programId} AND o."customerId" = ${p.customerId} AND o.remaining > 0 AND ${p.points} < 0
  ) lots
  WHERE lots.running - lots.remaining < -(${p.points})
), spent AS (
  -- Only a spend consumes lots, and only the customer's own: without these two conditions a plan made when the
  -- table was small scans every lot of the program on every earn (2.6 ms of a 3.5 ms increase at 7,000 lots).
  UPDATE "PointLot" o SET remaining = o.remaining - take.used FROM take
  WHERE ${p.points} < 0 AND o.id = take.id AND o."programId" = ${p.programId} AND o."customerId" = ${p.customerId}
    AND EXISTS (SELECT 1 FROM upd)
  RETURNING take.used
)`
      : sql`spent AS (SELECT 0 AS used WHERE false)`
  }, ${
    tiers
      ? sql`ctu AS (
  UPDATE "CustomerTier" ct SET "currentTierPoints" = tier.points, "currentTierId" = tier.tier_id,
         "tierChangedAt" = CASE WHEN tier.tier_id IS DISTINCT FROM cur."currentTierId" THEN (SELECT at FROM clock) ELSE ct."tierChangedAt" END
  FROM tier, cur
  WHERE ct."programId" = ${p.programId} AND ct."customerId" = ${p.customerId} AND ct.xmin = cur.tv AND EXISTS (SELECT 1 FROM upd)
  RETURNING 1
)`
      : sql`ctu AS (SELECT 1 AS one WHERE false)`
  }, event AS (
  INSERT INTO "Event" ("programId", type, data, "createdAt")
  SELECT e."programId", 'balance.changed',
         ${raw(p.entries ? campaignBalanceChangedData("e") : balanceChangedData("e"))}, e."createdAt"
  FROM e${
    tiers
      ? sql`
  UNION ALL
  SELECT ${p.programId}, 'tier.changed',
         jsonb_build_object('customerId', ${p.customerId}, 'fromTierId', cur."currentTierId", 'toTierId', tier.tier_id, 'tierStatus', tier.status),
         (SELECT at FROM clock)
  FROM tier, cur WHERE tier.tier_id IS DISTINCT FROM cur."currentTierId" AND EXISTS (SELECT 1 FROM ctu)`
      : empty
  }
  RETURNING 1
), change AS (${
    p.entries
      ? sql`
  SELECT upd.balance, NULL::uuid AS entry_id, NULL::text AS entry FROM upd`
      : sql`
  SELECT upd.balance, e.id AS entry_id, ${raw(ledgerEntryJson("e"))}::text AS entry FROM upd, e`
  }
), change_refusal AS (
  SELECT coalesce(due.why, CASE WHEN cur.balance::bigint + ${p.points} < 0 THEN 'insufficient_balance'
                                WHEN cur.balance::bigint + ${p.points} > ${int(MAX_BALANCE)} THEN 'balance_limit'
                                ELSE 'race' END) AS why
  FROM cur, due
), change_ok AS (
  -- Whatever the interleaving: the lots consumed cover the points taken, and an earn's tier state was the one read.
  SELECT NOT EXISTS (SELECT 1 FROM upd)
         OR (((SELECT coalesce(sum(used), 0) FROM spent) = greatest(-(${p.points}), 0))
             AND (NOT ${p.tier} OR EXISTS (SELECT 1 FROM ctu))
             AND (SELECT count(*) FROM event) >= 1
             AND (${p.points} < 0 OR (SELECT count(*) FROM lot) = ${p.entries ? sql`(SELECT count(*) FROM ${p.entries} x)` : raw("1")})) AS ok
)`;
};

/**
 * The tier rule of an earn, the SQL twin of tier-rules.ts `applyEarn` (the statement decides in one round trip):
 * the program's tiers ranked, and the tier state after the change. test/unit/tier-rules-sql.test.ts runs both on
 * generated cases. With `key` (the set earn, `EARN_SET`), `cur` holds several customers and `tier` one row per
 * customer, named by `key`; `points` then names a column of `cur`.
 */
export const tierCtes = (p: Pick<ChangeSql, "programId" | "tier" | "points"> & { key?: Sql }) => sql`ranked AS (
  SELECT t.id, t."requiredPoints", ${raw(tierRank("t"))} AS rank
  FROM "Tier" t WHERE t."programId" = ${p.programId} AND ${p.tier}
), tier AS (
  -- applyEarn (tier-rules.ts): the period's points saturate at int4; the better of the current tier and the one
  -- the points reach; the status is earned (base on the lowest tier) when the reached tier is the new one.
  SELECT ${p.key ? sql`${p.key} AS customer, ` : empty}n.points,
         CASE WHEN coalesce(r.rank, 0) > coalesce(c.rank, 0) THEN r.id ELSE cur."currentTierId" END AS tier_id,
         CASE WHEN r.id IS NOT NULL AND r.rank >= coalesce(c.rank, 0)
              THEN CASE WHEN r.rank <= 1 THEN 'base' ELSE 'earned' END
              ELSE cur."tierStatus" END AS status
  FROM cur
  CROSS JOIN LATERAL (SELECT least(${int(MAX_BALANCE)}, cur."currentTierPoints"::bigint + ${p.points})::int AS points) n
  LEFT JOIN LATERAL (SELECT x.id, x.rank FROM ranked x WHERE x."requiredPoints" <= n.points ORDER BY x.rank DESC LIMIT 1) r ON true
  LEFT JOIN ranked c ON c.id = cur."currentTierId"
  WHERE ${p.tier}
)`;

const SET = params([
  "programId",
  "now",
  "source",
  "actor",
  "ids",
  "customers",
  "points",
  "reasons",
  "metadata",
] as const);
const S = SET.sql;

/**
 * Earns of several customers in ONE statement (a lifecycle sweep's batch, campaigns/lifecycle.ts): the set form of
 * `changeCtes` for an earn that counts for tiers (shape `add`, tier points), one entry per customer, made of the same
 * rule pieces — the tier rule (`tierCtes` with a key), the expiry stamp (`loyalty_lot_expiry` through
 * `stampedExpirySql`, `idleDaysSql`), the activity rule (`ACTIVITY_TYPES`), the balance bounds (`MAX_BALANCE`), the
 * ledger entry, its lot, tier points and tier change, and the `balance.changed`/`tier.changed` events with the data
 * `changeBalance` gives them. Each customer's rows are the ones `changeBalance` writes for the same earn
 * (test/unit/lifecycle-set-earn.test.ts compares them); a change of `changeCtes` must be made here too.
 *
 * Only for what that locked path would do in one statement, which the caller guarantees: it holds every customer's
 * balance row lock (taken in customer id order), it closed every tier period due by `now` (tiers-engine.ts
 * `recalculateIfDue`), the earn never goes pending and never completes a referral (a `system` earn). The statement
 * fails as a whole (`abortUnless`) unless every customer's entry, lot, balance and tier row were written: a customer
 * without a balance or tier row, a balance past `MAX_BALANCE`, a period still due.
 */
const EARN_SET = sql`WITH clock AS (
  SELECT ${S.now}::timestamptz AS at
), cur AS (
  SELECT b.id, b.customer, b.points, b.reason, b.metadata,
         l.xmin AS lv, ct.xmin AS tv, l.balance, l."lastActivityAt" AS active, l."tierStatus", ct."currentTierId",
         ct."currentTierPoints", ct."recalculationDate"
  FROM unnest(${S.ids}::uuid[], ${S.customers}::uuid[], ${S.points}::int[], ${S.reasons}::text[],
              ${S.metadata}::text[]::jsonb[]) AS b(id, customer, points, reason, metadata)
    JOIN "LoyaltyData" l ON l."programId" = ${S.programId}::uuid AND l."customerId" = b.customer
    JOIN "CustomerTier" ct ON ct."programId" = l."programId" AND ct."customerId" = l."customerId"
  WHERE b.points > 0
), ${tierCtes({ programId: sql`${S.programId}::uuid`, tier: sql`true`, points: sql`cur.points`, key: sql`cur.customer` })}, upd AS (
  UPDATE "LoyaltyData" l SET balance = l.balance + cur.points, "updatedAt" = clock.at,
         "lastActivityAt" = ${(ACTIVITY_TYPES as readonly string[]).includes("earn") ? sql`clock.at` : sql`l."lastActivityAt"`},
         "tierStatus" = coalesce(tier.status, l."tierStatus")
  FROM cur JOIN tier ON tier.customer = cur.customer CROSS JOIN clock
  WHERE l."programId" = ${S.programId}::uuid AND l."customerId" = cur.customer AND l.xmin = cur.lv
    AND NOT coalesce(cur."recalculationDate" <= clock.at, false)
    AND l.balance::bigint + cur.points BETWEEN 0 AND ${int(MAX_BALANCE)}
  RETURNING l."customerId", l.balance
), program AS (
  SELECT ${raw(stampedExpirySql("pr", "clock.at"))} AS expires, ${raw(idleDaysSql("pr"))} AS idle_days
  FROM "Program" pr CROSS JOIN clock WHERE pr.id = ${S.programId}::uuid
), e AS (
  INSERT INTO "LedgerEntry" (id, "programId", "customerId", type, points, "balanceAfter", reason, source, actor,
                             "idempotencyKey", metadata, "earningFlowId", "orderId", "reversesId", "createdAt", "expiresAt")
  SELECT cur.id, ${S.programId}::uuid, cur.customer, 'earn', cur.points, upd.balance, cur.reason, ${S.source}::text,
         ${S.actor}::text, NULL::text, cur.metadata, NULL::uuid, NULL::text, NULL::uuid, clock.at, program.expires
  FROM cur JOIN upd ON upd."customerId" = cur.customer CROSS JOIN program CROSS JOIN clock
  RETURNING *
), lot AS (
  INSERT INTO "PointLot" ("programId", "customerId", "ledgerEntryId", remaining, "createdAt", "expiresAt", "idleDays")
  SELECT e."programId", e."customerId", e.id, e.points, e."createdAt", e."expiresAt", program.idle_days
  FROM e CROSS JOIN program
  RETURNING 1
), ctu AS (
  UPDATE "CustomerTier" ct SET "currentTierPoints" = tier.points, "currentTierId" = tier.tier_id,
         "tierChangedAt" = CASE WHEN tier.tier_id IS DISTINCT FROM cur."currentTierId" THEN clock.at ELSE ct."tierChangedAt" END
  FROM tier JOIN cur ON cur.customer = tier.customer CROSS JOIN clock
  WHERE ct."programId" = ${S.programId}::uuid AND ct."customerId" = cur.customer AND ct.xmin = cur.tv
    AND EXISTS (SELECT 1 FROM upd WHERE upd."customerId" = cur.customer)
  RETURNING ct."customerId"
), event AS (
  INSERT INTO "Event" ("programId", type, data, "createdAt")
  SELECT x."programId", x.type, x.data, x."createdAt" FROM (
    SELECT e."customerId", 0 AS ord, e."programId", 'balance.changed' AS type, ${raw(balanceChangedData("e"))} AS data,
           e."createdAt"
    FROM e
    UNION ALL
    SELECT cur.customer, 1, ${S.programId}::uuid, 'tier.changed',
           jsonb_build_object('customerId', cur.customer, 'fromTierId', cur."currentTierId", 'toTierId', tier.tier_id,
                              'tierStatus', tier.status),
           clock.at
    FROM tier JOIN cur ON cur.customer = tier.customer CROSS JOIN clock
    WHERE tier.tier_id IS DISTINCT FROM cur."currentTierId" AND EXISTS (SELECT 1 FROM ctu WHERE ctu."customerId" = cur.customer)
  ) x
  ORDER BY x."customerId", x.ord
  RETURNING 1
)
SELECT ${abortUnless(sql`(SELECT count(*) FROM e) = cardinality(${S.ids}::uuid[])
  AND (SELECT count(*) FROM lot) = cardinality(${S.ids}::uuid[])
  AND (SELECT count(*) FROM ctu) = cardinality(${S.ids}::uuid[])
  AND (SELECT count(*) FROM event) >= cardinality(${S.ids}::uuid[])
  AND cardinality(${S.ids}::uuid[]) = (SELECT count(DISTINCT c) FROM unnest(${S.customers}::uuid[]) AS c)`)} AS ok`;

/** One earn of a customer in a set earn (`earnSet`): its entry's id (made by the caller), points > 0, reason, metadata. */
export interface SetEarn {
  id: string;
  customerId: string;
  points: number;
  reason: string;
  metadata: Record<string, unknown>;
}

/**
 * Writes the earns (at most one per customer) in ONE statement, `EARN_SET`, under the preconditions said there,
 * in the caller's transaction.
 */
export async function earnSet(
  tx: Tx,
  input: { programId: string; source: LedgerSource; actor: string; now: Date; earns: readonly SetEarn[] },
) {
  if (!input.earns.length) return;
  for (const earn of input.earns) checkPoints(earn);
  await tx.$queryRawUnsafe(
    EARN_SET.text,
    ...SET.values({
      programId: input.programId,
      now: input.now.toISOString(),
      source: input.source,
      actor: input.actor,
      ids: input.earns.map((x) => x.id),
      customers: input.earns.map((x) => x.customerId),
      points: input.earns.map((x) => x.points),
      reasons: input.earns.map((x) => x.reason),
      metadata: input.earns.map((x) => JSON.stringify(x.metadata)),
    }),
  );
}

/** The parameters of a plain balance change, after the keyed statement's five. */
const CHANGE = params(
  [
    "programId",
    "customerId",
    "points",
    "type",
    "reason",
    "source",
    "actor",
    "idempotencyKey",
    "metadata",
    "earningFlowId",
    "now",
    "tier",
    "orderId",
    "reversesId",
    "email",
    "pending",
  ] as const,
  KEYED_PARAM_COUNT + 1,
);

const c = CHANGE.sql;

/**
 * A balance change of the given shape as a keyed statement's write (lib/db/keyed-statement.ts): its `result` is the
 * balance after it and the ledger entry (JSON text and id). The customer is named by id, or by e-mail on the hot path
 * (`CustomerByEmail`): none found, and the statement does nothing.
 */
export const changeWrite = (shape: ChangeShape): StatementWrite => ({
  ctes: sql`who AS (
  -- \`pending\` is named here too: a shape without the pending check (a spend) must still use every parameter.
  SELECT coalesce(${c.customerId}::uuid, (SELECT w.id FROM "Customer" w
    WHERE w."programId" = ${c.programId}::uuid AND w.email = ${c.email}::text AND w."deletedAt" IS NULL)) AS id,
    ${c.pending}::text AS pending
), ${changeCtes({
    programId: sql`${c.programId}::uuid`,
    customerId: sql`(SELECT id FROM who)`,
    points: sql`${c.points}::int`,
    type: sql`${c.type}::text`,
    reason: sql`${c.reason}::text`,
    source: sql`${c.source}::text`,
    actor: sql`${c.actor}::text`,
    idempotencyKey: sql`${c.idempotencyKey}::text`,
    metadata: sql`${c.metadata}::jsonb`,
    earningFlowId: sql`${c.earningFlowId}::uuid`,
    orderId: sql`${c.orderId}::text`,
    reversesId: sql`${c.reversesId}::uuid`,
    now: sql`${c.now}::timestamptz`,
    tier: sql`${c.tier}::boolean`,
    pending: sql`${c.pending}::text`,
    shape,
  })}, result AS (
  SELECT (SELECT id FROM who) AS "customerId", change.balance, change.entry, change.entry_id FROM change
), refusal AS (SELECT why FROM change_refusal), invariant AS (SELECT ok FROM change_ok)`,
  extras: ["balance", "entry", "entry_id"],
});

/** The key of a change's shape, for the caches of its statements. */
export const shapeKey = (change: Pick<BalanceChange, "type" | "points">) => {
  const shape = shapeOf(change);
  return { shape, key: `${shape.sign}:${shape.tier}` };
};

const LOCKED_STATEMENTS = new Map<string, Sql>();

/** The locked path's statement of a change: the write alone, without a key or an answer. */
const lockedChangeSql = (change: Pick<BalanceChange, "type" | "points">): Sql => {
  const { shape, key } = shapeKey(change);
  let sql = LOCKED_STATEMENTS.get(key);
  if (!sql) LOCKED_STATEMENTS.set(key, (sql = keyedStatement(changeWrite(shape))));
  return sql;
};

/**
 * A change on the hot path whose customer is named by e-mail (normalised): the statement finds them itself, one
 * round trip less than a lookup first. When no such customer exists it does nothing and hands over to the locked
 * path, whose lookup answers 404 `customer_not_found`.
 */
export type CustomerByEmail<T extends { customerId: string }> = Omit<T, "customerId"> & {
  customerId: null;
  email: string;
};

/** The values of `changeWrite`'s parameters (after the keyed statement's five); the time is the program's clock's. */
export const changeValues = (change: BalanceChange | CustomerByEmail<BalanceChange>) => {
  checkPoints(change);
  return CHANGE.values({
    programId: change.programId,
    customerId: change.customerId,
    email: "email" in change ? change.email : null,
    points: change.points,
    type: change.type,
    reason: change.reason ?? null,
    source: change.source,
    actor: change.actor,
    idempotencyKey: change.idempotencyKey ?? null,
    metadata: change.metadata == null ? null : JSON.stringify(change.metadata),
    earningFlowId: change.earningFlowId ?? null,
    now: (change.now ?? programNow(change.programId)).toISOString(),
    tier: countsForTier(change),
    orderId: change.orderId ?? null,
    reversesId: change.reversesId ?? null,
    pending: pendingParam(change.pending),
  });
};

function checkPoints(change: Pick<BalanceChange, "points">) {
  if (!Number.isInteger(change.points) || change.points === 0) throw new Error("points must be a non-zero integer");
}

/** The error of a refused change; null for the refusals that the locked path settles (a race, an expiry or period due). */
export function changeRefusal(why: string) {
  if (why === "insufficient_balance") return insufficientBalance();
  if (why === "balance_limit") return balanceLimit(MAX_BALANCE);
  return null;
}

/**
 * The locked path, in the caller's transaction (the dashboard, the CLI, redemptions, earning flows, and the
 * requests the hot path hands over): takes the customer's balance row lock first, settles what is due (expired
 * points before a spend, an ended tier period before an earn), then runs the same statement, which now cannot be
 * overtaken; a qualifying earn of a referred customer also completes their referral.
 */
export async function changeBalance(tx: Tx, request: BalanceChange): Promise<BalanceResult> {
  checkPoints(request);
  // One time for the whole change: its expiry, its tier period, its referral and its entry.
  const change = { ...request, now: request.now ?? programNow(request.programId) };
  await lockBalance(tx, change.programId, change.customerId);
  // A spend never draws on points that have expired, even when the expiry job has not run yet.
  if (change.points < 0) await expireDueLots(tx, change.programId, change.customerId, change.now);
  if (countsForTier(change)) await recalculateIfDue(tx, change.programId, change.customerId, change.now);
  // An earn that goes pending (pending-rules.ts) is written as pending points instead: no entry, no balance change.
  if (countsForTier(change) && change.pending != null) {
    const terms = pendingTerms(change.pending, await pendingSettings(tx, change.programId), change.now);
    if (terms) {
      const pending = await writePending(tx, change, terms);
      return { balance: pending.balance, entryJson: "null", entryId: "", pendingJson: pending.pendingJson };
    }
  }
  // A referred customer's first qualifying earn closes their referral (once), then rewards both sides after it.
  const referral = countsForTier(change) ? await closeReferral(tx, change) : null;
  const result = await runLockedWrite(tx, lockedChangeSql(change), changeValues(change));
  if ("row" in result) {
    const row = result.row;
    if (referral) await referral.reward((award) => changeBalance(tx, award));
    return { balance: Number(row.balance), entryJson: String(row.entry), entryId: String(row.entry_id) };
  }
  const error = changeRefusal(result.refusal);
  if (error) throw error;
  // Under the row lock nothing can overtake the statement; what is left is a customer without balance row.
  if (result.refusal === "missing") throw change.points < 0 ? insufficientBalance() : balanceLimit(MAX_BALANCE);
  throw new Error(`balance change refused under the row lock: ${result.refusal}`);
}

/**
 * Turns the customer's lots that expired by `now` into one `expire` entry and returns the points expired.
 * Called before every spend on the locked path and by the expiry job, in a transaction.
 */
export async function expireDueLots(tx: Tx, programId: string, customerId: string, now: Date): Promise<number> {
  const dueSql = `"programId" = $1::uuid AND "customerId" = $2::uuid AND ${lotDueSql('"PointLot"', "$3::timestamptz")}`;
  const due = await tx.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM "PointLot" WHERE ${dueSql}`,
    programId,
    customerId,
    now.toISOString(),
  );
  if (!due[0]?.n) return 0;
  // Take the balance lock first (the order every balance change uses), then zero the lots under it.
  await lockBalance(tx, programId, customerId);
  const [expired] = await tx.$queryRawUnsafe<{ points: number }[]>(
    `WITH due AS (SELECT id, remaining FROM "PointLot" WHERE ${dueSql}),
          upd AS (UPDATE "PointLot" l SET remaining = 0 FROM due WHERE l.id = due.id RETURNING due.remaining)
     SELECT coalesce(sum(remaining), 0)::int AS points FROM upd`,
    programId,
    customerId,
    now.toISOString(),
  );
  const points = expired?.points ?? 0;
  if (points > 0) await recordExpired(tx, { programId, customerId, points, now });
  return points;
}

/**
 * The `expire` entry of `points` whose lots the caller has already zeroed (so no lot is consumed here), under the
 * balance row lock the caller holds: expireDueLots, and a cancelled redemption whose lots expired since
 * (redemption-cancel.ts, with its own reason and metadata).
 */
export async function recordExpired(
  tx: Tx,
  e: {
    programId: string;
    customerId: string;
    points: number;
    now: Date;
    reason?: string;
    metadata?: Record<string, unknown>;
  },
) {
  const rows = await tx.$queryRawUnsafe<{ balance: number }[]>(
    EXPIRE_SQL,
    e.programId,
    e.customerId,
    -e.points,
    e.now.toISOString(),
    e.reason ?? "points expired",
    e.metadata ? JSON.stringify(e.metadata) : null,
  );
  if (!rows[0]) throw new Error(`expiry would make the balance of customer ${e.customerId} negative`);
}

/** The `expire` entry of points whose lots expireDueLots has already zeroed (so no lot is consumed here). */
const EXPIRE_SQL = `
WITH upd AS (
  UPDATE "LoyaltyData" SET balance = balance + $3, "updatedAt" = $4::timestamptz
  WHERE "programId" = $1::uuid AND "customerId" = $2::uuid AND balance + $3 >= 0
  RETURNING balance
), e AS (
  INSERT INTO "LedgerEntry" ("programId", "customerId", type, points, "balanceAfter", reason, source, actor, metadata, "createdAt")
  SELECT $1::uuid, $2::uuid, 'expire', $3, upd.balance, $5::text, 'system', 'system', $6::jsonb, $4::timestamptz FROM upd
  RETURNING *
), event AS (
  INSERT INTO "Event" ("programId", type, data, "createdAt")
  SELECT e."programId", 'balance.changed',
         ${balanceChangedData("e")}, e."createdAt"
  FROM e
  RETURNING 1
)
SELECT upd.balance FROM upd, e`;
