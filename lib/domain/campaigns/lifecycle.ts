import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Db, Tx } from "@/lib/db/types";
import { execute, query, raw, sql } from "@/lib/db/sql";
import { lockBalance } from "../balance-lock";
import { sweepNow } from "../clock";
import { recalculateIfDue } from "../tiers-engine";
import { randomUUID } from "node:crypto";
import { earnSet, type SetEarn } from "../ledger";
import {
  applyEvaluation,
  campaignEarn,
  evaluatorCustomer,
  loadCustomer,
  loadCustomers,
  loadUses,
  pointEffect,
  type CustomerRow,
  type EventEffect,
} from "./apply";
import { budgetUsedSql, lockBudgets } from "./budget";
import type { AttrTypes } from "./conditions";
import {
  isLifecycle,
  triggerType,
  type CampaignDefinition,
  type LifecycleTrigger,
  type SkipReason,
} from "./definition";
import { evaluate, limitWindow, type CampaignVersionState, type Evaluation } from "./evaluate";
import {
  dateParts,
  followingDay,
  keptOn,
  localDaysIn,
  monthDay,
  monthDaysKeptOn,
  type LocalDay,
} from "./lifecycle-calendar";
import { localMidnight, zonedTime } from "./schedule";

/**
 * Lifecycle campaigns (API.md "Lifecycle campaigns"): campaigns whose trigger is a moment that comes with time —
 * a birthday, a membership anniversary, n days without activity, the signup, reaching a tier — fired through the one
 * evaluator (evaluate.ts) and the one application of its answer (apply.ts), like events.
 *
 * Exactly once per occurrence. An occurrence is (campaign, customer, occurrence key): "birthday:<local year>",
 * "anniversary:<local year>", "inactive:<last activity instant>" (one per spell without activity), "signup",
 * "tier:<tier>:<instant the tier was reached>". Firing one takes the customer's balance row lock (the first lock,
 * as for every balance change), then inserts its `LifecycleOccurrence` row (`ON CONFLICT DO NOTHING`) in the same
 * transaction as its effects: a second scheduler, a retry, a restart or a repeated advance finds the row and does
 * nothing. The occurrence is used up whatever the evaluator decides (a condition false on the day is not retried).
 *
 * When. Each program has a watermark (`LifecycleSweep.sweptTo`): a sweep up to `until` fires the moments in
 * [sweptTo, until] (the first sweep starts at the earliest first activation of its lifecycle campaigns), then moves
 * the watermark to `until` — only when every firing succeeded, so a failed one is retried by the next sweep. A
 * campaign fires only for moments at or after its first activation (activating a signup campaign does not reward
 * every existing member); moments that pass while it is paused are not fired later (the watermark moves on).
 * Live programs are swept by the scheduler on real time (lib/jobs/scheduler.ts), test programs by the clock advance
 * (program-clock.ts) at each due instant, after activations, expiry and tier recalculation at that instant.
 *
 * Who is due, set-based: birthdays by the `UserData (programId, birthday)` index ("MM-DD" of each local day in the
 * window, with "02-29" on 28 February of a common year); anniversaries and signups by `LoyaltyData (programId,
 * memberSince)` ranges (one per past year of each day); tiers by `CustomerTier (programId, currentTierId)`; inactivity
 * by the customers with activity (or a signup) in the window shifted back by n days, kept when their last activity
 * is in it. Activity: a customer event, or an `earn` entry not given by a lifecycle campaign.
 */

export interface LifecycleCampaign {
  campaignId: string;
  name: string;
  version: number;
  definition: CampaignDefinition;
  attrTypes: AttrTypes;
  budgetUsed: number;
  firstActivatedAt: Date;
  trigger: LifecycleTrigger;
  /** The evaluator's event type for it (definition.ts `triggerType`). */
  type: string;
}

/** One customer's occurrence of one trigger type, due at `at`. */
export interface DueOccurrence {
  customerId: string;
  type: string;
  trigger: LifecycleTrigger;
  occurrence: string;
  at: Date;
  attributes: Record<string, unknown>;
}

/** A campaign that applied for an occurrence (the advance's timeline row `lifecycle.fired`). */
export interface Fired {
  at: Date;
  customerId: string;
  campaignId: string;
  campaignVersion: number;
  lifecycle: LifecycleTrigger["lifecycle"];
  occurrence: string;
  points: number;
}

/** At most this many local days are swept at once (a longer outage does not fire birthdays older than a year). */
const MAX_DAYS = 366;
const DAY_MS = 86_400_000;
const ACTOR = "lifecycle";

interface ProgramRef {
  id: string;
  timeZone: string;
}

/** The program's active lifecycle campaigns (their running versions), by campaign id. */
export async function activeLifecycleCampaigns(db: Db, programId: string): Promise<LifecycleCampaign[]> {
  const rows = await query<Omit<LifecycleCampaign, "trigger" | "type"> & { firstActivatedAt: Date | string }>(
    db,
    sql`SELECT c.id::text AS "campaignId", v.name, v.version, v.definition, v."attrTypes", ${raw(budgetUsedSql("c"))} AS "budgetUsed",
       (SELECT min(f."activatedAt") FROM "CampaignVersion" f WHERE f."campaignId" = c.id) AS "firstActivatedAt"
     FROM "Campaign" c JOIN "CampaignVersion" v ON v."campaignId" = c.id AND v.version = c.version
     WHERE c."programId" = ${programId}::uuid AND c.status = 'active'
       AND (v.definition->'trigger'->>'lifecycle') IS NOT NULL
     ORDER BY c.id`,
  );
  return rows.flatMap((r) => {
    const trigger = r.definition.trigger;
    if (!isLifecycle(trigger)) return [];
    return [{ ...r, firstActivatedAt: new Date(r.firstActivatedAt), trigger, type: triggerType(trigger) }];
  });
}

/** The campaigns grouped by trigger type (campaigns of one type are evaluated together, by priority). */
function byType(campaigns: readonly LifecycleCampaign[]): Map<string, LifecycleCampaign[]> {
  const groups = new Map<string, LifecycleCampaign[]>();
  for (const c of campaigns) {
    const list = groups.get(c.type);
    if (list) list.push(c);
    else groups.set(c.type, [c]);
  }
  return groups;
}

const iso = (d: Date) => d.toISOString();

async function programRef(db: Db, programId: string): Promise<ProgramRef | null> {
  const [row] = await query<ProgramRef>(
    db,
    sql`SELECT id::text AS id, "timeZone" FROM "Program" WHERE id = ${programId}::uuid`,
  );
  return row ?? null;
}

async function watermark(db: Db, programId: string): Promise<Date | null> {
  const [row] = await query<{ sweptTo: Date | string }>(
    db,
    sql`SELECT "sweptTo" FROM "LifecycleSweep" WHERE "programId" = ${programId}::uuid`,
  );
  return row ? new Date(row.sweptTo) : null;
}

/** Moves the program's watermark forward to `to` (never back: another sweep may be ahead). */
export async function moveWatermark(db: Db, programId: string, to: Date) {
  await execute(
    db,
    sql`INSERT INTO "LifecycleSweep" ("programId", "sweptTo") VALUES (${programId}::uuid, ${iso(to)}::timestamptz)
     ON CONFLICT ("programId") DO UPDATE SET "sweptTo" = GREATEST("LifecycleSweep"."sweptTo", EXCLUDED."sweptTo")`,
  );
}

/** Where a sweep starts: the watermark, but never before the first activation of any of the campaigns. */
const sinceOf = (mark: Date | null, campaigns: readonly LifecycleCampaign[]) => {
  const first = Math.min(...campaigns.map((c) => c.firstActivatedAt.getTime()));
  return new Date(Math.max(mark?.getTime() ?? first, first));
};

/** The occurrences of one trigger type whose moment is in [since, until]. */
async function dueOf(
  db: Db,
  program: ProgramRef,
  trigger: LifecycleTrigger,
  since: Date,
  until: Date,
  keep: "latest" | "earliest" = "latest",
): Promise<DueOccurrence[]> {
  const type = triggerType(trigger);
  const P = program.id;
  const base = { type, trigger };
  switch (trigger.lifecycle) {
    case "birthday": {
      const days = localDaysIn(since, until, program.timeZone, MAX_DAYS, keep);
      if (!days.length) return [];
      const keys = [...new Set(days.flatMap(monthDaysKeptOn))];
      const rows = await query<{ customerId: string; birthdate: string }>(
        db,
        sql`SELECT u."customerId"::text AS "customerId", u.birthdate FROM "UserData" u
           JOIN "Customer" c ON c.id = u."customerId" AND c."deletedAt" IS NULL
           JOIN "LoyaltyData" l ON l."customerId" = u."customerId"
         WHERE u."programId" = ${P}::uuid AND u.birthday = ANY(${keys}::text[])`,
      );
      return rows.flatMap((r) => {
        const born = dateParts(r.birthdate);
        if (!born) return [];
        return days
          .filter((d) => d.year > born.year && keptOn(born, d))
          .map((d) => ({
            ...base,
            customerId: r.customerId,
            occurrence: `birthday:${d.year}`,
            at: d.at,
            attributes: { age: d.year - born.year },
          }));
      });
    }
    case "anniversary": {
      const days = localDaysIn(since, until, program.timeZone, MAX_DAYS, keep);
      if (!days.length) return [];
      const [first] = await query<{ at: Date | string | null }>(
        db,
        sql`SELECT min("memberSince") AS at FROM "LoyaltyData" WHERE "programId" = ${P}::uuid`,
      );
      if (!first?.at) return [];
      const firstYear = zonedTime(new Date(first.at), program.timeZone).year;
      // One memberSince range per (day, past year): the local days kept on `day` in that year.
      const starts: string[] = [];
      const ends: string[] = [];
      const dayIndex: number[] = [];
      days.forEach((d, i) => {
        for (let year = firstYear; year < d.year; year++)
          for (const md of monthDaysKeptOn(d)) {
            const [month, day] = md.split("-").map(Number) as [number, number];
            const parts = dateParts(`${year}-${md}`);
            if (!parts) continue; // 29 February of a common year
            const next = followingDay({ year, month, day });
            starts.push(iso(localMidnight(year, month, day, program.timeZone)));
            ends.push(iso(localMidnight(next.year, next.month, next.day, program.timeZone)));
            dayIndex.push(i);
          }
      });
      if (!starts.length) return [];
      const rows = await query<{ customerId: string; day: number; memberSince: Date | string }>(
        db,
        sql`SELECT l."customerId"::text AS "customerId", r.day, l."memberSince"
         FROM unnest(${starts}::text[]::timestamptz[], ${ends}::text[]::timestamptz[], ${dayIndex}::int[]) AS r(s, e, day)
           JOIN "LoyaltyData" l ON l."programId" = ${P}::uuid AND l."memberSince" >= r.s AND l."memberSince" < r.e
           JOIN "Customer" c ON c.id = l."customerId" AND c."deletedAt" IS NULL`,
      );
      return rows.map((r) => {
        const d = days[r.day]!;
        const joined = zonedTime(new Date(r.memberSince), program.timeZone).year;
        return {
          ...base,
          customerId: r.customerId,
          occurrence: `anniversary:${d.year}`,
          at: d.at,
          attributes: { years: d.year - joined },
        };
      });
    }
    case "signup": {
      const rows = await query<{ customerId: string; memberSince: Date | string }>(
        db,
        sql`SELECT l."customerId"::text AS "customerId", l."memberSince" FROM "LoyaltyData" l
           JOIN "Customer" c ON c.id = l."customerId" AND c."deletedAt" IS NULL
         WHERE l."programId" = ${P}::uuid
           AND l."memberSince" >= ${iso(since)}::timestamptz AND l."memberSince" <= ${iso(until)}::timestamptz`,
      );
      return rows.map((r) => ({
        ...base,
        customerId: r.customerId,
        occurrence: "signup",
        at: new Date(r.memberSince),
        attributes: {},
      }));
    }
    case "tier_reached": {
      const rows = await query<{ customerId: string; at: Date | string }>(
        db,
        sql`SELECT ct."customerId"::text AS "customerId", ct."tierChangedAt" AS at FROM "CustomerTier" ct
           JOIN "Tier" t ON t.id = ct."currentTierId" AND t."programId" = ${P}::uuid AND t.name = ${trigger.tier}
           JOIN "Customer" c ON c.id = ct."customerId" AND c."deletedAt" IS NULL
         WHERE ct."programId" = ${P}::uuid AND ct."currentTierId" = t.id
           AND ct."tierChangedAt" >= ${iso(since)}::timestamptz AND ct."tierChangedAt" <= ${iso(until)}::timestamptz`,
      );
      return rows.map((r) => {
        const at = new Date(r.at);
        return {
          ...base,
          customerId: r.customerId,
          occurrence: `tier:${trigger.tier}:${iso(at)}`,
          at,
          attributes: { tier: trigger.tier },
        };
      });
    }
    case "inactivity": {
      const span = trigger.days * DAY_MS;
      const lo = iso(new Date(since.getTime() - span));
      const hi = iso(new Date(until.getTime() - span));
      const rows = await query<{ customerId: string; last: Date | string }>(
        db,
        sql`WITH candidates AS (
           SELECT l."customerId" FROM "LoyaltyData" l
           WHERE l."programId" = ${P}::uuid AND l."memberSince" >= ${lo}::timestamptz AND l."memberSince" <= ${hi}::timestamptz
           UNION
           SELECT e."customerId" FROM "LedgerEntry" e
           WHERE e."programId" = ${P}::uuid AND e.type = 'earn' AND (e.metadata->>'lifecycle') IS NULL
             AND e."createdAt" >= ${lo}::timestamptz AND e."createdAt" <= ${hi}::timestamptz
           UNION
           SELECT ce."customerId" FROM "CustomerEvent" ce
           WHERE ce."programId" = ${P}::uuid AND ce."createdAt" >= ${lo}::timestamptz AND ce."createdAt" <= ${hi}::timestamptz
         ), lasts AS (
           SELECT l."customerId", GREATEST(
               l."memberSince",
               (SELECT max(e."createdAt") FROM "LedgerEntry" e
                 WHERE e."customerId" = l."customerId" AND e.type = 'earn' AND (e.metadata->>'lifecycle') IS NULL),
               (SELECT max(ce."createdAt") FROM "CustomerEvent" ce
                 WHERE ce."programId" = ${P}::uuid AND ce."customerId" = l."customerId")
             ) AS last
           FROM candidates k JOIN "LoyaltyData" l ON l."customerId" = k."customerId"
             JOIN "Customer" c ON c.id = l."customerId" AND c."deletedAt" IS NULL
         )
         SELECT "customerId"::text AS "customerId", last FROM lasts
         WHERE last >= ${lo}::timestamptz AND last <= ${hi}::timestamptz`,
      );
      return rows.map((r) => {
        const last = new Date(r.last);
        return {
          ...base,
          customerId: r.customerId,
          occurrence: `inactive:${iso(last)}`,
          at: new Date(last.getTime() + span),
          attributes: { days: trigger.days, lastActivityAt: iso(last) },
        };
      });
    }
  }
}

/** Every occurrence due in [since, until], in time order (then customer, then type: one fixed order). */
async function dueIn(
  db: Db,
  program: ProgramRef,
  campaigns: readonly LifecycleCampaign[],
  since: Date,
  until: Date,
): Promise<DueOccurrence[]> {
  const due: DueOccurrence[] = [];
  for (const [, group] of byType(campaigns)) due.push(...(await dueOf(db, program, group[0]!.trigger, since, until)));
  return due.sort(
    (a, b) =>
      a.at.getTime() - b.at.getTime() ||
      (a.customerId < b.customerId ? -1 : a.customerId > b.customerId ? 1 : 0) ||
      (a.type < b.type ? -1 : a.type > b.type ? 1 : 0),
  );
}

/** What an occurrence's firing stores on its occurrence rows: the evaluator's decision per campaign. */
interface OccurrenceOutcome {
  campaignId: string;
  customerId: string;
  occurrence: string;
  outcome: unknown;
}

const occurrenceKey = (campaignId: string, customerId: string, occurrence: string) =>
  `${campaignId} ${customerId} ${occurrence}`;

/**
 * Claims occurrences in the caller's transaction, after their customers' balance row locks (taken by the caller):
 * the `LifecycleOccurrence` rows of the eligible campaigns not yet fired for them, in ONE statement (the unique key).
 * Answers the keys this transaction inserted (campaign, customer, occurrence): only those fire.
 */
async function claimOccurrences(
  tx: Tx,
  programId: string,
  dues: readonly DueOccurrence[],
  groups: ReadonlyMap<string, readonly LifecycleCampaign[]>,
  now: Date,
): Promise<Set<string>> {
  const rows = dues.flatMap((due) =>
    groups
      .get(due.type)!
      .filter((c) => c.firstActivatedAt <= due.at)
      .map((c) => ({ c, due })),
  );
  if (!rows.length) return new Set();
  const claimed = await query<{ campaignId: string; customerId: string; occurrence: string }>(
    tx,
    sql`INSERT INTO "LifecycleOccurrence"
       ("programId", "campaignId", "customerId", occurrence, "campaignVersion", at, "firedAt")
     SELECT ${programId}::uuid, u.id, u.customer, u.occurrence, u.version, u.at, ${iso(now)}::timestamptz
     FROM unnest(${rows.map((r) => r.c.campaignId)}::uuid[], ${rows.map((r) => r.due.customerId)}::uuid[],
                 ${rows.map((r) => r.due.occurrence)}::text[], ${rows.map((r) => r.c.version)}::int[],
                 ${rows.map((r) => iso(r.due.at))}::text[]::timestamptz[]) AS u(id, customer, occurrence, version, at)
     ON CONFLICT ("campaignId", "customerId", occurrence) DO NOTHING
     RETURNING "campaignId"::text AS "campaignId", "customerId"::text AS "customerId", occurrence`,
  );
  return new Set(claimed.map((r) => occurrenceKey(r.campaignId, r.customerId, r.occurrence)));
}

/** Stores the evaluator's decisions on their occurrence rows, in ONE statement. */
async function storeOutcomes(tx: Tx, outcomes: readonly OccurrenceOutcome[]) {
  if (!outcomes.length) return;
  await execute(
    tx,
    sql`UPDATE "LifecycleOccurrence" o SET outcome = x.outcome
     FROM unnest(${outcomes.map((o) => o.campaignId)}::uuid[], ${outcomes.map((o) => o.customerId)}::uuid[],
                 ${outcomes.map((o) => o.occurrence)}::text[],
                 ${outcomes.map((o) => JSON.stringify(o.outcome))}::text[]::jsonb[]) AS x(id, customer, occurrence, outcome)
     WHERE o."campaignId" = x.id AND o."customerId" = x.customer AND o.occurrence = x.occurrence`,
  );
}

/** The campaigns of an occurrence's type that this transaction claimed for it (copies: their budget is re-read). */
const claimedOf = (due: DueOccurrence, group: readonly LifecycleCampaign[], claimed: ReadonlySet<string>) =>
  group.filter((c) => claimed.has(occurrenceKey(c.campaignId, due.customerId, due.occurrence))).map((c) => ({ ...c }));

/** The one evaluator's decision for an occurrence, over the customer's state read under the balance row lock. */
async function evaluateOccurrence(
  tx: Tx,
  programId: string,
  due: DueOccurrence,
  rows: readonly LifecycleCampaign[],
  customer: CustomerRow,
  now: Date,
): Promise<Evaluation> {
  const nowLocal = zonedTime(now, customer.timeZone);
  const windows = new Map<string, string>();
  for (const r of rows) {
    const w = limitWindow(r.definition, nowLocal);
    if (w !== null) windows.set(r.campaignId, w);
  }
  const uses = await loadUses(tx, programId, due.customerId, windows);
  const campaigns: CampaignVersionState[] = rows.map((r) => ({
    campaignId: r.campaignId,
    version: r.version,
    definition: r.definition,
    attrTypes: r.attrTypes,
    budgetUsed: r.budgetUsed,
    customerUses: uses.get(r.campaignId) ?? 0,
  }));
  return evaluate({
    event: { type: due.type, occurredAt: due.at, attributes: due.attributes },
    customer: await evaluatorCustomer(tx, programId, due.customerId, customer, rows, now),
    campaigns,
    now,
    timeZone: customer.timeZone,
  });
}

const provenanceOf = (due: DueOccurrence) => ({
  lifecycle: due.trigger.lifecycle,
  occurrence: due.occurrence,
  eventType: due.type,
});

/** What an applied evaluation stores on the occurrence rows and gives the advance's timeline. */
function settled(
  due: DueOccurrence,
  rows: readonly LifecycleCampaign[],
  evaluation: Evaluation,
  applied: { effects: EventEffect[]; skipped: { campaignId: string; reason: SkipReason }[] },
): { fired: Fired[]; outcomes: OccurrenceOutcome[] } {
  const outcomes = rows.map((r) => {
    const a = evaluation.applied.find((x) => x.campaignId === r.campaignId);
    const effects = applied.effects.filter((e) => e.campaignId === r.campaignId);
    const skipped = applied.skipped.filter((s) => s.campaignId === r.campaignId).map((s) => s.reason);
    return {
      campaignId: r.campaignId,
      customerId: due.customerId,
      occurrence: due.occurrence,
      outcome: a ? { applied: true, points: a.points, effects, skipped } : { applied: false, skipped },
    };
  });
  const fired = evaluation.applied.map((a) => ({
    at: due.at,
    customerId: due.customerId,
    campaignId: a.campaignId,
    campaignVersion: a.version,
    lifecycle: due.trigger.lifecycle,
    occurrence: due.occurrence,
    points: a.points,
  }));
  return { fired, outcomes };
}

/** The one application of an evaluation (apply.ts), one balance change per campaign with points. */
async function applyOne(
  tx: Tx,
  programId: string,
  due: DueOccurrence,
  rows: readonly LifecycleCampaign[],
  customer: CustomerRow,
  evaluation: Evaluation,
  now: Date,
) {
  const applied = await applyEvaluation(tx, {
    programId,
    customerId: due.customerId,
    evaluation,
    versions: rows,
    balance: customer.balance,
    source: "system",
    actor: ACTOR,
    provenance: provenanceOf(due),
    idempotencyKey: null,
    orderId: null,
    now,
  });
  return settled(due, rows, evaluation, applied);
}

/**
 * Applies one claimed occurrence for the campaigns of its type that it claimed, in the caller's transaction (which
 * holds the customer's balance row lock): a due tier period closed (as every earn does), the budgeted campaigns
 * locked, then the one evaluator and the one application of its answer. Answers what fired and the outcomes.
 */
async function applyOccurrence(
  tx: Tx,
  programId: string,
  due: DueOccurrence,
  group: readonly LifecycleCampaign[],
  claimed: ReadonlySet<string>,
  now: Date,
): Promise<{ fired: Fired[]; outcomes: OccurrenceOutcome[] }> {
  const rows = claimedOf(due, group, claimed);
  if (!rows.length) return { fired: [], outcomes: [] };
  await recalculateIfDue(tx, programId, due.customerId, now);
  const budgeted = rows.filter((r) => r.definition.limits.budgetPoints !== undefined).map((r) => r.campaignId);
  if (budgeted.length) {
    // Locked, with the budget slices' room given back (budget.ts): the exact points given until commit.
    const used = await lockBudgets(tx, budgeted);
    for (const r of rows) r.budgetUsed = used.get(r.campaignId) ?? r.budgetUsed;
  }
  const customer = await loadCustomer(tx, programId, due.customerId);
  if (!customer) return { fired: [], outcomes: [] };
  return applyOne(
    tx,
    programId,
    due,
    rows,
    customer,
    await evaluateOccurrence(tx, programId, due, rows, customer, now),
    now,
  );
}

/**
 * Whether an occurrence of this group can be earned set-wise (`applySet`): campaigns that only give points, with no
 * budget, no per-customer limit and no points cap, so their application is one earn and nothing else.
 */
const settable = (group: readonly LifecycleCampaign[]) =>
  group.every(
    (c) =>
      c.definition.limits.budgetPoints === undefined &&
      c.definition.limits.perCustomer === undefined &&
      c.definition.limits.pointsCaps === undefined &&
      c.definition.effects.every((e) => e.type !== "assign_coupon"),
  );

/**
 * Applies claimed occurrences of different customers (each settable) with their earns in ONE statement (ledger.ts
 * `earnSet`, the set form of the balance change), in the caller's transaction, which holds their balance row locks:
 * the tier periods due closed first (one read, then the period close of each customer due, as every earn does),
 * the customers read in one statement, each occurrence decided by the one evaluator, and the earns written together —
 * each the entry, lot, tier points, tier change and events that `applyEvaluation`'s balance change would write. An
 * occurrence where more than one campaign gives points goes through `applyEvaluation` (one balance change per
 * campaign, as before), so every customer's rows stay what the one-by-one application writes.
 */
async function applySet(
  tx: Tx,
  programId: string,
  dues: readonly DueOccurrence[],
  groups: ReadonlyMap<string, readonly LifecycleCampaign[]>,
  claimed: ReadonlySet<string>,
  now: Date,
): Promise<Map<DueOccurrence, { fired: Fired[]; outcomes: OccurrenceOutcome[] }>> {
  const done = new Map<DueOccurrence, { fired: Fired[]; outcomes: OccurrenceOutcome[] }>();
  const work = dues.flatMap((due) => {
    const rows = claimedOf(due, groups.get(due.type)!, claimed);
    return rows.length ? [{ due, rows }] : [];
  });
  if (!work.length) return done;
  const ids = work.map((w) => w.due.customerId);
  const periodsDue = await query<{ customerId: string }>(
    tx,
    sql`SELECT "customerId"::text AS "customerId" FROM "CustomerTier"
     WHERE "programId" = ${programId}::uuid AND "customerId" = ANY(${ids}::uuid[])
       AND "recalculationDate" <= ${iso(now)}::timestamptz
     ORDER BY "customerId"`,
  );
  for (const p of periodsDue) await recalculateIfDue(tx, programId, p.customerId, now);
  const customers = await loadCustomers(tx, programId, ids);
  const earns: SetEarn[] = [];
  const alone: (() => Promise<void>)[] = [];
  for (const { due, rows } of work) {
    const customer = customers.get(due.customerId);
    if (!customer) continue;
    const evaluation = await evaluateOccurrence(tx, programId, due, rows, customer, now);
    const giving = evaluation.applied.filter((a) => a.points > 0);
    if (giving.length > 1) {
      alone.push(async () => {
        done.set(due, await applyOne(tx, programId, due, rows, customer, evaluation, now));
      });
      continue;
    }
    const effects: EventEffect[] = [];
    for (const applied of evaluation.applied) {
      const transactionId = applied.points > 0 ? randomUUID() : null;
      if (transactionId) {
        const version = rows.find((r) => r.campaignId === applied.campaignId)!;
        earns.push({
          id: transactionId,
          customerId: due.customerId,
          points: applied.points,
          ...campaignEarn(version, applied, provenanceOf(due)),
        });
      }
      for (const e of applied.effects)
        if (e.type !== "assign_coupon") effects.push(pointEffect(applied, e, transactionId));
    }
    done.set(due, settled(due, rows, evaluation, { effects, skipped: evaluation.skipped }));
  }
  await earnSet(tx, { programId, source: "system", actor: ACTOR, now, earns });
  for (const apply of alone) await apply();
  return done;
}

/**
 * Fires one occurrence for the campaigns of its type, in the caller's transaction: the balance row lock, the
 * occurrence rows of the campaigns not yet fired for it (the unique key), then the application above.
 */
async function fireOccurrence(
  tx: Tx,
  programId: string,
  due: DueOccurrence,
  groups: ReadonlyMap<string, readonly LifecycleCampaign[]>,
  now: Date,
): Promise<Fired[]> {
  return fireBatch(tx, programId, [due], groups, now);
}

/**
 * Fires a batch of occurrences in the caller's transaction (the scheduler's sweep; one occurrence is a batch of
 * one): the balance row locks of all their customers in customer id order (ONE statement; the lock order of every
 * balance change, so two sweeps of the same batch queue on the first customer instead of deadlocking), their
 * occurrence rows claimed in ONE statement, applied, their outcomes stored in ONE statement. Applied: each
 * customer's first occurrence of the batch whose campaigns only give points (`settable`) set-wise with the others —
 * one read of the customers, one earn statement for all (`applySet`) —, then the others one by one in time order
 * (`applyOccurrence`; `setEarn: false` applies every occurrence so, the bench's and the twin test's reference).
 * Batches are only made of occurrences whose campaigns take no other shared lock (no budget, no coupon: see
 * `batchable`), so holding many balance locks cannot deadlock with an event that holds one and waits for a campaign.
 */
async function fireBatch(
  tx: Tx,
  programId: string,
  dues: readonly DueOccurrence[],
  groups: ReadonlyMap<string, readonly LifecycleCampaign[]>,
  now: Date,
  setEarn = true,
): Promise<Fired[]> {
  const eligible = dues.filter((due) => groups.get(due.type)!.some((c) => c.firstActivatedAt <= due.at));
  if (!eligible.length) return [];
  const customers = [...new Set(eligible.map((d) => d.customerId))].sort();
  if (customers.length === 1) await lockBalance(tx, programId, customers[0]!);
  else
    await execute(
      tx,
      sql`SELECT 1 FROM "LoyaltyData" WHERE "programId" = ${programId}::uuid AND "customerId" = ANY(${customers}::uuid[])
        ORDER BY "customerId" FOR UPDATE`,
    );
  const claimed = await claimOccurrences(tx, programId, eligible, groups, now);
  if (!claimed.size) return [];
  // Each customer's first occurrence of the batch, when settable, is earned set-wise with the others (applySet);
  // the customer's later ones, and the rest, one by one after it, in time order.
  const first = new Set<string>();
  const set: DueOccurrence[] = [];
  for (const due of eligible) {
    if (setEarn && !first.has(due.customerId) && settable(groups.get(due.type)!)) set.push(due);
    first.add(due.customerId);
  }
  const done = await applySet(tx, programId, set, groups, claimed, now);
  const fired: Fired[] = [];
  const outcomes: OccurrenceOutcome[] = [];
  for (const due of eligible) {
    const one =
      done.get(due) ??
      (set.includes(due) ? null : await applyOccurrence(tx, programId, due, groups.get(due.type)!, claimed, now));
    if (!one) continue;
    fired.push(...one.fired);
    outcomes.push(...one.outcomes);
  }
  await storeOutcomes(tx, outcomes);
  return fired;
}

/** Occurrences of a sweep fired together in one transaction (see fireBatch). */
export const LIFECYCLE_BATCH = 200;

/** Whether an occurrence of this group may share a transaction with others: no campaign with a budget or a coupon. */
const batchable = (group: readonly LifecycleCampaign[]) =>
  group.every(
    (c) =>
      c.definition.limits.budgetPoints === undefined && c.definition.effects.every((e) => e.type !== "assign_coupon"),
  );

/**
 * One step of a test program's clock advance (program-clock.ts), in its transaction (which holds the program row
 * lock): fires every lifecycle occurrence due by `at`, with `at` as the program's now, and moves the watermark there.
 */
export async function fireLifecycleAt(tx: Tx, programId: string, at: Date): Promise<Fired[]> {
  const campaigns = await activeLifecycleCampaigns(tx, programId);
  if (!campaigns.length) return [];
  const program = await programRef(tx, programId);
  if (!program) return [];
  const since = sinceOf(await watermark(tx, programId), campaigns);
  const fired: Fired[] = [];
  if (since <= at) {
    const groups = byType(campaigns);
    for (const due of await dueIn(tx, program, campaigns, since, at))
      fired.push(...(await fireOccurrence(tx, programId, due, groups, at)));
  }
  await moveWatermark(tx, programId, at);
  return fired;
}

/**
 * The earliest lifecycle moment of a test program after `after` (from its watermark, included, when null) and not
 * after `to`: the clock advance steps to it. Null when none.
 */
export async function nextLifecycleMoment(
  db: Db,
  programId: string,
  after: Date | null,
  to: Date,
): Promise<Date | null> {
  const campaigns = await activeLifecycleCampaigns(db, programId);
  if (!campaigns.length) return null;
  const program = await programRef(db, programId);
  if (!program) return null;
  const since = sinceOf(await watermark(db, programId), campaigns);
  const lo = after && after > since ? after : since;
  const strict = after !== null && after >= since;
  if (lo > to) return null;
  let best: Date | null = null;
  const consider = (m: Date) => {
    if ((strict ? m > lo : m >= lo) && m <= to && (!best || m < best)) best = m;
  };
  for (const [, group] of byType(campaigns)) {
    const trigger = group[0]!.trigger;
    if (trigger.lifecycle === "birthday" || trigger.lifecycle === "anniversary") {
      // The month-days kept by someone, then the first local day in range that keeps one of them.
      const keys = new Set(
        (
          await query<{ md: string }>(
            db,
            trigger.lifecycle === "birthday"
              ? sql`SELECT DISTINCT u.birthday AS md FROM "UserData" u
                 JOIN "Customer" c ON c.id = u."customerId" AND c."deletedAt" IS NULL
                 WHERE u."programId" = ${programId}::uuid AND u.birthday IS NOT NULL`
              : sql`SELECT DISTINCT to_char(l."memberSince" AT TIME ZONE ${program.timeZone}, 'MM-DD') AS md
                 FROM "LoyaltyData" l JOIN "Customer" c ON c.id = l."customerId" AND c."deletedAt" IS NULL
                 WHERE l."programId" = ${programId}::uuid`,
          )
        ).map((r) => r.md),
      );
      if (!keys.size) continue;
      const day = localDaysIn(lo, to, program.timeZone, 1_000, "earliest").find(
        (d: LocalDay) => (strict ? d.at > lo : true) && monthDaysKeptOn(d).some((k) => keys.has(k)),
      );
      if (day) consider(day.at);
      continue;
    }
    for (const due of await dueOf(db, program, trigger, lo, to, "earliest")) consider(due.at);
  }
  return best;
}

/**
 * The scheduler's job (lib/jobs/scheduler.ts): every live program with an active lifecycle campaign, swept up to
 * real time (the program clock of a live program), in batches of up to LIFECYCLE_BATCH occurrences per transaction
 * (fireBatch; an occurrence of a campaign with a budget or a coupon in its own). Several instances may run it at
 * once: each occurrence's unique key lets one of them fire it, and the watermark only moves forward.
 */
export async function fireDueLifecycle(
  prisma: PrismaClient,
  options: { programId?: string; now?: Date; batch?: number; setEarn?: boolean } = {},
): Promise<{ programs: number; fired: number; failed: number }> {
  const size = Math.max(1, options.batch ?? LIFECYCLE_BATCH);
  const programs = await query<ProgramRef>(
    prisma,
    sql`SELECT DISTINCT p.id::text AS id, p."timeZone" FROM "Campaign" c
       JOIN "Program" p ON p.id = c."programId" AND NOT p.test
       JOIN "CampaignVersion" v ON v."campaignId" = c.id AND v.version = c.version
     WHERE c.status = 'active' AND (v.definition->'trigger'->>'lifecycle') IS NOT NULL
       AND (${options.programId ?? null}::uuid IS NULL OR p.id = ${options.programId ?? null}::uuid)`,
  );
  let fired = 0;
  let failed = 0;
  let firstError: unknown = null;
  for (const program of programs) {
    const now = options.now ?? sweepNow();
    const campaigns = await activeLifecycleCampaigns(prisma, program.id);
    if (!campaigns.length) continue;
    const since = sinceOf(await watermark(prisma, program.id), campaigns);
    if (since > now) continue;
    const groups = byType(campaigns);
    let programFailed = false;
    const one = async (batch: readonly DueOccurrence[]) =>
      prisma.$transaction((tx) => fireBatch(tx, program.id, batch, groups, now, options.setEarn ?? true), {
        timeout: 60_000,
        maxWait: 30_000,
      });
    const dues = await dueIn(prisma, program, campaigns, since, now);
    for (let i = 0; i < dues.length;) {
      // A run of batchable occurrences (up to LIFECYCLE_BATCH) in one transaction, any other alone.
      let end = i + 1;
      if (batchable(groups.get(dues[i]!.type)!))
        while (end < dues.length && end - i < size && batchable(groups.get(dues[end]!.type)!)) end += 1;
      const batch = dues.slice(i, end);
      i = end;
      try {
        fired += (await one(batch)).length;
      } catch (err) {
        // The batch rolled back: each of its occurrences alone, so one failure leaves only itself for the next sweep
        // (the watermark stays); those that commit will not fire again.
        for (const due of batch.length > 1 ? batch : []) {
          try {
            fired += (await one([due])).length;
          } catch (e) {
            failed += 1;
            programFailed = true;
            firstError ??= e;
          }
        }
        if (batch.length === 1) {
          failed += 1;
          programFailed = true;
          firstError ??= err;
        }
      }
    }
    if (!programFailed) await moveWatermark(prisma, program.id, now);
  }
  if (firstError) throw firstError;
  return { programs: programs.length, fired, failed };
}

/** A birthdate's "MM-DD" (the form kept in UserData.birthday); exported for tests and the bench. */
export const birthdayKey = (birthdate: string) => {
  const p = dateParts(birthdate);
  return p ? monthDay(p.month, p.day) : null;
};
