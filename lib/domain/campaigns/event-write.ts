import "server-only";
import { randomUUID } from "node:crypto";
import type { RawQueries } from "@/lib/db/types";
import { empty, params, raw, sql, type Sql } from "@/lib/db/sql";
import { KEYED_PARAM_COUNT, type StatementWrite } from "@/lib/db/keyed-statement";
import { changeCtes } from "../ledger";
import { ledgerEntryJson } from "../sql";
import { budgetChunk, budgetUsedSql, SLICES } from "./budget";
import type { AttrTypes } from "./conditions";
import type { CampaignDefinition, EventAttributes, SkipReason } from "./definition";
import type { Evaluation } from "./evaluate";
import { pendingOptionOf, pendingTerms, type PendingSettings, type PendingTerms } from "../pending-rules";

/**
 * The write of a customer event (API.md "Campaigns and events") as ONE keyed statement, the same on both paths
 * (architecture.md "Hot writes in one statement"): the event's campaign points as one balance change with one ledger
 * entry per campaign (ledger.ts `changeCtes` with `entries`), the budgets consumed, the per-customer uses counted,
 * the event kept in the event log, and (keyedStatement) the Idempotency-Key's record with the answer.
 *
 * The decision is the evaluator's (evaluate.ts), made in TypeScript over what `readEventSnapshot` read (hot path) or
 * over the locked rows (customer-events.ts, the locked path); the statement only applies it, with guards that make a
 * decision taken on a stale snapshot fail instead of overshooting:
 * - the balance and tier rows must still be the versions the statement's own read found (changeCtes' xmin guard): a
 *   concurrent change within the statement reports `race`, and the request takes the locked path. The decision's read
 *   (`readEventSnapshot`, a round trip earlier) is not guarded (`seen` is null for an event, unlike an earning
 *   flow's run): an event is decided on the customer as they were when it arrived, so a condition on the balance or
 *   the tier factor may see the state one concurrent write old. Limits and budgets stay exact:
 * - each budget is consumed by `UPDATE … WHERE budgetUsed + points <= budget`, which PostgreSQL re-checks against the
 *   latest committed row after waiting for a concurrent consumer; each use is counted by an upsert that only counts
 *   below the limit. When one of them did not happen, the `invariant` fails and the whole statement rolls back (a
 *   lost race: the locked path). So limits and budgets are exact whatever the interleaving;
 * - an ended tier period (`tier_due`) or a referral the earn completes (`referral_due`) is reported for the locked
 *   path, as for every earn.
 * An event with no points (nothing applied, or coupons only) leaves the balance alone. Coupons are assigned by the
 * locked path only (before the statement, in its transaction): the hot path hands such an event over.
 */

const EVENT = params(
  [
    "programId",
    "customerId",
    "eventId",
    "type",
    "occurredAt",
    "orderId",
    "attributes",
    "outcome",
    "idempotencyKey",
    "actor",
    "now",
    "total",
    "entries",
    "budgets",
    "uses",
    "head",
    "tail",
    "source",
    "earningFlowId",
    "seen",
  ] as const,
  KEYED_PARAM_COUNT + 1,
);
const v = EVENT.sql;

/**
 * What an event's statement must do, known before it runs (`eventPlan`): consume budgets, count per-customer uses,
 * keep the event in the event log (an earning flow's run is not kept there). The statement of a shape leaves out the
 * parts that cannot apply, as a balance change's does (ledger.ts `ChangeShape`): PostgreSQL opens and locks every
 * table and index a plan names on every execution, whether the part runs or not. Its `invariant` still checks that
 * the values fit the shape (no budget, no use, no event id where the shape has none), so a mismatch rolls back.
 */
export interface EventShape {
  budgets: boolean;
  uses: boolean;
  log: boolean;
}

/**
 * The budgets an event consumes (`budgets`: JSON rows of `bud`: campaign id, points, cap, slice, chunk; budget.ts),
 * as CTEs ending in `budget` (one row per budget consumed), left open for the statement's next part to close.
 * `acted`: whether the write acted (SQL boolean). One text for an event's own statement and for events written
 * together (event-batch.ts).
 */
export const budgetCtes = (budgets: Sql, programId: Sql, acted: Sql) => sql`bud AS (
  SELECT * FROM jsonb_to_recordset(${budgets}::jsonb) AS b(id uuid, points int, cap int, slice int, chunk int)
), bslice AS (
  -- The slice each budget spends from (budget.ts), locked before any row, the budgets in campaign order: one that no
  -- concurrent statement holds (SKIP LOCKED: an event does not wait for another's slice, held until that one has
  -- committed and flushed its WAL), one with room for the points first, from the event's random slice on; when every
  -- slice is held, the event's random slice, waited for (never the row: an event waiting there would hold its slices
  -- meanwhile, and the others would queue behind it). Its room as locked.
  SELECT b.id AS "campaignId", coalesce(f.slice, w.slice) AS slice, coalesce(f.room, w.room) AS room
  FROM (SELECT * FROM bud ORDER BY id) b
  LEFT JOIN LATERAL (
    SELECT s.slice, s.room FROM "CampaignBudgetSlice" s
    WHERE s."campaignId" = b.id AND s."programId" = ${programId} AND ${acted}
    ORDER BY s.room >= b.points DESC, (s.slice - b.slice + ${raw(String(SLICES))}) % ${raw(String(SLICES))}
    LIMIT 1 FOR UPDATE OF s SKIP LOCKED
  ) f ON true
  LEFT JOIN LATERAL (
    SELECT s.slice, s.room FROM "CampaignBudgetSlice" s
    WHERE f.slice IS NULL AND s."campaignId" = b.id AND s.slice = b.slice AND s."programId" = ${programId}
      AND ${acted}
    FOR UPDATE OF s
  ) w ON true
  WHERE coalesce(f.slice, w.slice) IS NOT NULL
), refill AS (
  -- A slice short of room (or a campaign without slices) takes from the campaign's row: the points and, into the
  -- slice, room for its next events; never past the budget.
  UPDATE "Campaign" k SET "budgetUsed" = k."budgetUsed" + CASE WHEN sl."campaignId" IS NULL THEN b.points ELSE b.chunk END
  FROM bud b LEFT JOIN bslice sl ON sl."campaignId" = b.id
  -- Every slice is locked (the count reads them all) before any row.
  WHERE (SELECT count(*) FROM bslice) >= 0
    AND k.id = b.id AND k."programId" = ${programId} AND coalesce(sl.room, 0) < b.points
    AND k."budgetUsed" + CASE WHEN sl."campaignId" IS NULL THEN b.points ELSE b.chunk END <= b.cap
    AND ${acted}
  RETURNING k.id, sl."campaignId" IS NOT NULL AS sliced, b.chunk
), spent_slice AS (
  -- The slices by their key, read through the index (= ANY of the locked ones): the planner, which expects a hundred
  -- rows of any recordset, would otherwise hash the whole table (every program's slices) for the one or two here.
  UPDATE "CampaignBudgetSlice" s SET room = sl.room - b.points + coalesce(r.chunk, 0)
  FROM bud b JOIN bslice sl ON sl."campaignId" = b.id LEFT JOIN refill r ON r.id = b.id
  WHERE s."campaignId" = ANY(ARRAY(SELECT x."campaignId" FROM bslice x))
    AND s."campaignId" = b.id AND s.slice = sl.slice AND (sl.room >= b.points OR r.id IS NOT NULL)
  RETURNING s."campaignId"
), budget AS (
  -- Each budget consumed: from its slice (refilled or not), or from the row of a campaign without slices.
  SELECT b.id FROM bud b
  WHERE EXISTS (SELECT 1 FROM spent_slice x WHERE x."campaignId" = b.id)
     OR EXISTS (SELECT 1 FROM refill r WHERE r.id = b.id AND NOT r.sliced)
`;

/**
 * The per-customer uses an event counts (`uses`: a relation of campaign `id`, `window`, `cap` and `customer`), as the
 * CTE `used` (left open, as `budgetCtes`): one row per use counted, none for a use already at its cap. One text for an
 * event's own statement and for events written together (event-batch.ts).
 */
export const usesCte = (uses: Sql, programId: Sql, acted: Sql) => sql`used AS (
  INSERT INTO "CampaignUsage" ("programId", "campaignId", "customerId", "window", count)
  SELECT ${programId}, u.id, u.customer, u."window", 1 FROM ${uses} u WHERE ${acted}
  ON CONFLICT ("campaignId", "customerId", "window") DO UPDATE SET count = "CampaignUsage".count + 1
    WHERE "CampaignUsage".count < (SELECT c.cap FROM ${uses} c
                                   WHERE c.id = excluded."campaignId" AND c.customer = excluded."customerId")
  RETURNING 1
`;

const eventWriteOf = (shape: EventShape): StatementWrite => ({
  ctes: sql`ev_entries AS (
  SELECT * FROM jsonb_to_recordset(${v.entries}::jsonb) AS x(ord int, id uuid, points int, reason text, metadata jsonb)
), ${changeCtes({
    programId: sql`${v.programId}::uuid`,
    customerId: sql`${v.customerId}::uuid`,
    // NULL (the balance left alone) for an event without points.
    points: sql`nullif(${v.total}::int, 0)`,
    type: sql`'earn'`,
    reason: sql`NULL::text`,
    source: sql`${v.source}::text`,
    actor: sql`${v.actor}::text`,
    idempotencyKey: sql`${v.idempotencyKey}::text`,
    metadata: sql`NULL::jsonb`,
    earningFlowId: sql`${v.earningFlowId}::uuid`,
    orderId: sql`${v.orderId}::text`,
    now: sql`${v.now}::timestamptz`,
    tier: sql`(${v.total}::int > 0)`,
    shape: { sign: "add", tier: true },
    entries: sql`ev_entries`,
  })}, acted AS (
  SELECT 1 AS one FROM cur WHERE ${v.total}::int = 0 OR EXISTS (SELECT 1 FROM upd)
${
  shape.budgets
    ? sql`), ${budgetCtes(sql`${v.budgets}`, sql`${v.programId}::uuid`, sql`EXISTS (SELECT 1 FROM acted)`)}
`
    : empty
}${
    shape.uses
      ? sql`), ${usesCte(
          sql`(SELECT u.*, ${v.customerId}::uuid AS customer FROM jsonb_to_recordset(${v.uses}::jsonb) AS u(id uuid, "window" text, cap int))`,
          sql`${v.programId}::uuid`,
          sql`EXISTS (SELECT 1 FROM acted)`,
        )}
`
      : empty
  }${
    shape.log
      ? sql`), logged AS (
  INSERT INTO "CustomerEvent" (id, "programId", "customerId", type, "occurredAt", "orderId", attributes, outcome,
                               "idempotencyKey", "createdAt")
  SELECT ${v.eventId}::uuid, ${v.programId}::uuid, ${v.customerId}::uuid, ${v.type}::text, ${v.occurredAt}::timestamptz,
         ${v.orderId}::text, ${v.attributes}::jsonb, ${v.outcome}::jsonb, ${v.idempotencyKey}::text, ${v.now}::timestamptz
  FROM acted WHERE ${v.eventId}::uuid IS NOT NULL
  RETURNING 1
`
      : sql`), logged AS (
  -- Every parameter is named in every shape (its type must be known): these are the event row's.
  SELECT 1 AS one WHERE ${v.eventId}::uuid IS NOT NULL AND ${v.type}::text IS NULL AND ${v.occurredAt}::timestamptz IS NULL
    AND ${v.attributes}::jsonb IS NULL AND ${v.outcome}::jsonb IS NULL`
  }), result AS (
  SELECT ${v.customerId}::uuid AS "customerId", coalesce((SELECT balance FROM upd), (SELECT balance FROM cur)) AS balance,
         ${v.head}::text AS head, ${v.tail}::text AS tail,
         CASE WHEN ${v.earningFlowId}::uuid IS NOT NULL THEN (SELECT ${raw(ledgerEntryJson("e"))}::text FROM e) END AS entry
  FROM acted
), refusal AS (
  SELECT why FROM change_refusal WHERE NOT EXISTS (SELECT 1 FROM acted)
), invariant AS (
  -- Evaluated left to right, each CTE when first read: the budgets last, so that their rows (which every event of
  -- the campaign updates, and which stay locked until commit) are locked for the shortest time: after everything
  -- else the statement writes, just before the commit.
  SELECT (SELECT ok FROM change_ok)
         AND (NOT EXISTS (SELECT 1 FROM acted)
              OR ((${v.seen}::text IS NULL OR (SELECT lv::text || ':' || tv::text FROM cur) = ${v.seen}::text)
                  AND (SELECT count(*) FROM logged) = CASE WHEN ${v.eventId}::uuid IS NULL THEN 0 ELSE 1 END
                  AND ${shape.uses ? sql`(SELECT count(*) FROM used)` : raw("0")} = jsonb_array_length(${v.uses}::jsonb)
                  AND ${shape.budgets ? sql`(SELECT count(*) FROM budget)` : raw("0")} = jsonb_array_length(${v.budgets}::jsonb))) AS ok
)`,
  extras: ["balance", "entry"],
});

const shapeKey = (shape: EventShape) => `${+shape.budgets}${+shape.uses}${+shape.log}`;

/**
 * The statements built on the event's write (`build`: a keyed statement with its answer, or the locked path's), one
 * per shape, built when first asked for.
 */
export function perEventShape<T>(build: (write: StatementWrite) => T): (shape: EventShape) => T {
  const built = new Map<string, T>();
  return (shape) => {
    const key = shapeKey(shape);
    let out = built.get(key);
    if (out === undefined) built.set(key, (out = build(eventWriteOf(shape))));
    return out;
  };
}

/** The answer of an event that acted: `{ event, effects, balance, skipped }`, the balance from the statement. */
export const EVENT_ANSWER_BODY = sql`r.head || r.balance || r.tail`;

/**
 * The answer of an earning flow's run (`FlowRun`): `{ pointsEarned, balance, transaction, capped }`, the balance and
 * the entry (null when the run earned nothing) from the statement.
 */
export const FLOW_ANSWER_BODY = sql`r.head || r.balance || ',"transaction":' || coalesce(r.entry, 'null') || r.tail`;

export interface EventEffect {
  campaignId: string;
  campaignVersion: number;
  type: "award_points" | "multiply_points" | "assign_coupon";
  points: number | null;
  couponCode: string | null;
  transactionId: string | null;
  /**
   * Points that go pending (pending-rules.ts: the campaign's override or the program's setting): the pending points'
   * id (null on a dry run) and when they mature (null: when the order is confirmed). Null: spendable at once.
   */
  pending: { id: string | null; maturesAt: string | null } | null;
}

export interface CustomerEventOutcome {
  event: { id: string | null; type: string; occurredAt: string };
  effects: EventEffect[];
  balance: number;
  skipped: { campaignId: string; reason: SkipReason }[];
}

/** A triggered campaign's running version as the write needs it. */
export interface VersionInfo {
  campaignId: string;
  name: string;
  version: number;
  definition: CampaignDefinition;
  attrTypes: AttrTypes;
}

export interface EventInput {
  programId: string;
  customerId: string;
  type: string;
  occurredAt: Date;
  orderId: string | null;
  attributes: Record<string, unknown>;
  actor: string;
  idempotencyKey: string | null;
  now: Date;
}

/** A coupon assigned by the locked path (null code: the pool had none, the campaign's other effects stand). */
export type AssignedCoupons = Map<string, (string | null)[]>;

/**
 * A run of an earning flow through the engine (earning-flows.ts): the flow's campaign is its definition, so its entry
 * names the flow (`earningFlowId`, `source: earning_flow`, the flow's reason and metadata) rather than a campaign; its
 * caps count the flow's ledger entries, guarded by the balance and tier rows' versions the decision read (`seen`,
 * "xmin:xmin"; null under the locked path); its run is kept in its ledger entry, not in the event log; and it has its
 * own answer (`FLOW_ANSWER_BODY`) around the balance and the entry.
 */
export interface FlowRun {
  earningFlowId: string;
  reason: string;
  metadata: object;
  seen: string | null;
  head: string;
  tail: string;
}

/** A campaign's points that go pending instead of into the statement (written by the caller: pending-write.ts). */
export interface PendingEntry {
  id: string;
  campaignId: string;
  points: number;
  reason: string;
  metadata: object;
  terms: PendingTerms;
}

/**
 * The pending terms of each applied campaign with points whose earn goes pending (pending-rules.ts, the one rule:
 * the campaign's override, else the program's setting), by campaign id. Empty: every point is spendable at once.
 */
export function pendingOfEvaluation(
  evaluation: Evaluation,
  versions: Map<string, Pick<VersionInfo, "definition">>,
  program: PendingSettings,
  now: Date,
): Map<string, PendingTerms> {
  const out = new Map<string, PendingTerms>();
  for (const a of evaluation.applied) {
    if (a.points <= 0) continue;
    const terms = pendingTerms(pendingOptionOf(versions.get(a.campaignId)?.definition), program, now);
    if (terms) out.set(a.campaignId, terms);
  }
  return out;
}

/**
 * What the statement writes for an evaluation: one ledger entry per campaign with points (ids made here, so the
 * answer can name them), the budgets and uses, the event row's outcome and the answer around the balance. `coupons`
 * (locked path only) gives the codes assigned, in effect order per campaign; `flow`, an earning flow's run;
 * `counted` (the hot path), each budgeted campaign's row count (`Campaign.budgetUsed`, slices' room included) as
 * read, to size what a slice short of room takes (budget.ts `budgetChunk`); without it a slice takes the points only.
 * `pending` (locked path only, `pendingOfEvaluation`): the campaigns whose points go pending; they are left out of
 * the statement's balance change and returned as `pendingEntries` for the caller to write (their budgets and uses
 * still count), and their effects say so.
 */
export function eventPlan(
  input: EventInput,
  evaluation: Evaluation,
  versions: Map<string, VersionInfo>,
  coupons: AssignedCoupons | null,
  flow?: FlowRun,
  counted?: Map<string, number>,
  pending: Map<string, PendingTerms> = new Map(),
) {
  const eventId = randomUUID();
  const entries: { ord: number; id: string; points: number; reason: string; metadata: object }[] = [];
  const pendingEntries: PendingEntry[] = [];
  const budgets: { id: string; points: number; cap: number; slice: number; chunk: number }[] = [];
  const uses: { id: string; window: string; cap: number }[] = [];
  const effects: EventEffect[] = [];
  const skipped = [...evaluation.skipped];
  let total = 0;
  for (const applied of evaluation.applied) {
    const version = versions.get(applied.campaignId)!;
    const limits = version.definition.limits;
    let transactionId: string | null = null;
    let pendingView: EventEffect["pending"] = null;
    if (applied.points > 0) {
      const entry = {
        points: applied.points,
        reason: flow ? flow.reason : `campaign: ${version.name}`,
        metadata: flow
          ? flow.metadata
          : {
              campaignId: applied.campaignId,
              campaignVersion: applied.version,
              campaignName: version.name,
              eventId,
              eventType: input.type,
              window: applied.window,
              budgeted: limits.budgetPoints !== undefined,
            },
      };
      const terms = pending.get(applied.campaignId);
      if (terms) {
        const id = randomUUID();
        pendingEntries.push({ id, campaignId: applied.campaignId, ...entry, terms });
        pendingView = { id, maturesAt: terms.maturesAt?.toISOString() ?? null };
      } else {
        transactionId = randomUUID();
        total += applied.points;
        entries.push({ ord: entries.length, id: transactionId, ...entry });
      }
      if (limits.budgetPoints !== undefined) {
        const cap = limits.budgetPoints;
        const row = counted?.get(applied.campaignId);
        budgets.push({
          id: applied.campaignId,
          points: applied.points,
          cap,
          slice: Math.floor(Math.random() * SLICES),
          chunk: row === undefined ? applied.points : budgetChunk(applied.points, cap, row),
        });
      }
    }
    if (applied.window !== null && limits.perCustomer && !flow)
      uses.push({ id: applied.campaignId, window: applied.window, cap: limits.perCustomer.count });
    const codes = [...(coupons?.get(applied.campaignId) ?? [])];
    for (const e of applied.effects) {
      const base = { campaignId: applied.campaignId, campaignVersion: applied.version, type: e.type };
      if (e.type !== "assign_coupon") {
        effects.push({ ...base, points: e.points, couponCode: null, transactionId, pending: pendingView });
        continue;
      }
      const code = codes.shift() ?? null;
      if (code === null) skipped.push({ campaignId: applied.campaignId, reason: "coupon_pool_empty" });
      else effects.push({ ...base, points: null, couponCode: code, transactionId: null, pending: null });
    }
  }
  const event = { id: eventId, type: input.type, occurredAt: input.occurredAt.toISOString() };
  // Each list serialised once, for the event row's outcome and the answer alike.
  const effectsJson = JSON.stringify(effects);
  const skippedJson = JSON.stringify(skipped);
  const head = flow ? flow.head : `{"event":${JSON.stringify(event)},"effects":${effectsJson},"balance":`;
  const tail = flow ? flow.tail : `,"skipped":${skippedJson}}`;
  // In campaign order: the statement locks their slices in that order (two events never wait on each other's).
  budgets.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const named = {
    programId: input.programId,
    customerId: input.customerId,
    // An earning flow's run is not kept in the event log: no id, no row.
    eventId: flow ? null : eventId,
    type: input.type,
    occurredAt: input.occurredAt.toISOString(),
    orderId: input.orderId,
    attributes: JSON.stringify(input.attributes),
    outcome: `{"effects":${effectsJson},"skipped":${skippedJson}}`,
    idempotencyKey: input.idempotencyKey,
    actor: input.actor,
    now: input.now.toISOString(),
    total,
    entries: JSON.stringify(entries),
    budgets: JSON.stringify(budgets),
    uses: JSON.stringify(uses),
    head,
    tail,
    source: flow ? "earning_flow" : "api",
    earningFlowId: flow ? flow.earningFlowId : null,
    seen: flow ? flow.seen : null,
  };
  const shape: EventShape = { budgets: budgets.length > 0, uses: uses.length > 0, log: !flow };
  return {
    values: EVENT.values(named),
    named,
    entries,
    budgets,
    uses,
    shape,
    total,
    event,
    effects,
    skipped,
    pendingEntries,
  };
}

/** What `eventPlan` made: the statement's values (`values`, and by name: `named`), its shape and the decision. */
export type EventPlan = ReturnType<typeof eventPlan>;

/** Whether an evaluation assigns a coupon (the locked path's work). */
export const assignsCoupon = (evaluation: Evaluation) =>
  evaluation.applied.some((a) => a.effects.some((e) => e.type === "assign_coupon"));

/**
 * Campaign versions by `campaignId:version`. A version is immutable (store.ts `activateCampaign` freezes it), so an
 * entry never goes stale: activation, pause, resume and end change which version a campaign runs (read from
 * `Campaign` with every event), never what a version says. Bounded; cleared when full.
 */
const VERSIONS = new Map<string, Omit<VersionInfo, "campaignId">>();
const VERSIONS_MAX = 10_000;

/**
 * The versions named, from the cache or (those missing) in one read. `db`: the hot path's pool (lib/db/client.ts
 * `poolQueries`) or any client: the columns come as both drivers give them alike (uuid as text, int, jsonb).
 */
export async function versionsOf(db: RawQueries, running: { campaignId: string; version: number }[]) {
  const missing = running.filter((r) => !VERSIONS.has(`${r.campaignId}:${r.version}`));
  if (missing.length) {
    const rows = await db.$queryRawUnsafe<
      { campaignId: string; version: number; name: string; definition: CampaignDefinition; attrTypes: AttrTypes }[]
    >(
      `SELECT v."campaignId"::text AS "campaignId", v.version, v.name, v.definition, v."attrTypes"
       FROM "CampaignVersion" v JOIN unnest($1::uuid[], $2::int[]) AS w(id, version)
         ON v."campaignId" = w.id AND v.version = w.version`,
      missing.map((m) => m.campaignId),
      missing.map((m) => m.version),
    );
    if (VERSIONS.size + rows.length > VERSIONS_MAX) VERSIONS.clear();
    for (const r of rows) VERSIONS.set(`${r.campaignId}:${r.version}`, r);
  }
  const out: VersionInfo[] = [];
  for (const r of running) {
    const v = VERSIONS.get(`${r.campaignId}:${r.version}`);
    if (v) out.push({ ...v, campaignId: r.campaignId, version: r.version });
  }
  return out;
}

export interface EventSnapshot extends PendingSettings {
  customerId: string;
  balance: number;
  memberSince: Date;
  language: string | null;
  customAttributes: Record<string, unknown>;
  tier: string | null;
  factor: number | null;
  timeZone: string;
  declared: EventAttributes | null;
  /** The program's active campaigns: id, running version, budget used (points given), its row's count (budget.ts). */
  campaigns: [string, number, number, number][];
  /** The customer's use counters of the program's active campaigns in the windows asked for. */
  uses: [string, string, number][];
}

/**
 * The hot path's one read (one snapshot): the customer by e-mail with their balance, tier and membership, the
 * program's time zone, the event type's declaration, the program's active campaigns and the customer's use counters
 * in `windows` (the keys of now's windows: customer-events.ts computes them for the program's time zone). Undefined
 * when no such customer exists. Read on the hot path's pool (not through Prisma, whose mapping of a raw query cost
 * more CPU than the rest of the read: bench/profile.ts `events`); every column comes alike from both drivers (text,
 * int, float8, timestamptz as a Date, json and jsonb parsed).
 */
export async function readEventSnapshot(
  db: RawQueries,
  programId: string,
  email: string,
  type: string,
  windows: string[],
): Promise<EventSnapshot | undefined> {
  const [row] = await db.$queryRawUnsafe<EventSnapshot[]>(SNAPSHOT_SQL, programId, email, type, windows);
  return row;
}

// The campaigns are read by the customer's program (`c."programId"`), not by the parameter: a plan made for the
// parameter's value estimates that program's campaigns, and where programs differ in size PostgreSQL found those
// plans cheaper than the generic one and planned every read anew (0.94 ms of planning for 0.19 ms of work, with
// 1,000 campaigns of other programs: bench/README.md "Campaigns of other programs"). Through the row, every plan
// is the generic one.
const SNAPSHOT_SQL = `
SELECT c.id::text AS "customerId", l.balance, l."memberSince", c.language, c."customAttributes", t.name AS tier,
       t.factor, p."timeZone", p."pendingDays", p."pendingUntilConfirmed", p."pendingCountsForTier",
       (SELECT et.attributes FROM "EventType" et WHERE et."programId" = $1::uuid AND et.type = $3::text) AS declared,
       (SELECT coalesce(json_agg(json_build_array(k.id, k.version, ${budgetUsedSql("k")}, k."budgetUsed")), '[]')
        FROM "Campaign" k WHERE k."programId" = c."programId" AND k.status = 'active') AS campaigns,
       (SELECT coalesce(json_agg(json_build_array(u."campaignId", u."window", u.count)), '[]')
        FROM "CampaignUsage" u JOIN "Campaign" k ON k.id = u."campaignId"
        WHERE k."programId" = c."programId" AND k.status = 'active' AND u."customerId" = c.id
          AND u."window" = ANY($4::text[])) AS uses
FROM "Customer" c
  JOIN "LoyaltyData" l ON l."programId" = c."programId" AND l."customerId" = c.id
  JOIN "Program" p ON p.id = c."programId"
  LEFT JOIN "CustomerTier" ct ON ct."programId" = c."programId" AND ct."customerId" = c.id
  LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
WHERE c."programId" = $1::uuid AND c.email = $2::text AND c."deletedAt" IS NULL`;
