import "server-only";
import type { Db } from "@/lib/db/types";
import { int, query, sql } from "@/lib/db/sql";
import { findRow } from "@/lib/db/require-row";
import { conflict, notFound, validationFailed } from "@/lib/errors";
import { addMonths, sortTiers, tierAtClose, tierForPoints } from "../tier-rules";
import { loadTiers } from "../tier-ranking";
import { attrTypesOf, type AttrTypes } from "./conditions";
import { isLifecycle, triggerType, type CampaignBody, type CampaignDefinition, type SkipReason } from "./definition";
import { evaluate, limitWindow, type CampaignVersionState } from "./evaluate";
import { windowKey, zonedTime } from "./schedule";
import { SIMULATION_MAX_DAYS, SIMULATION_MAX_EVENTS, SIMULATION_SAMPLE } from "./simulate-limits";
import { eventTypeAttributes } from "./store";
import { pendingOptionOf, pendingTerms, type PendingSettings } from "../pending-rules";

/**
 * A campaign's draft tried on the program's real history (API.md "Simulations"): the customer events recorded in
 * [from, to) are replayed twice through the one evaluator (evaluate.ts) — the baseline with the campaign versions
 * that ran when each event was recorded, the candidate with this campaign's draft in place of its version (or added,
 * for a campaign never activated) — and every other ledger entry of those customers in the window (redemptions,
 * spends, adjustments, increases, earning-flow earns, expiries, reversals) is replayed as it happened between them.
 * Reads only: nothing is stored, nothing is sent.
 *
 * How history is read:
 * - Time: events and entries by when they were recorded (`createdAt`, the program clock's now at the time), in that
 *   order, events before entries at the same instant; the evaluator's `now` is that time, its `occurredAt` the event's.
 * - Versions by time: a campaign runs version N from N's `activatedAt` until N+1's; a campaign that is paused or ended
 *   now is taken as stopped since its last change (`updatedAt`: pauses are not kept with their times).
 * - A customer's balance at `from` is today's balance minus the ledger since `from`; their tier at an event is the
 *   one before the first `tier.changed` after it (the current tier when none followed).
 * - Budgets and per-customer limits start from what the campaign's ledger entries before `from` used (net of
 *   reversals for budgets), then count in each replay separately.
 * - A reversal of a campaign's entry takes back, in each replay, the same share of what that replay gave for that
 *   event and campaign, and gives it back to the campaign's budget, and the customer's use once nothing of it is
 *   left (release.ts, the live rule); so does a refund's
 *   cancel of a campaign's pending points (a `PendingPoints` row cancelled in the window, at its `settledAt`): the
 *   share comes out of the replay's points of that event still pending, then out of its balance. An expiry takes at most the replay's balance. A redemption or spend is replayed with its real
 *   points even when the replay's balance would not have covered it: that is a shortfall, counted and listed.
 * - Tier moves are projected on each customer's current tier period: the difference of campaign points earned in it
 *   added to its tier points; up when the tier reached is higher now, down when the tier kept at the period's close
 *   would be lower.
 * - Pending points (API.md §4): a campaign's points go pending by the one rule of the live write (pending-rules.ts
 *   `pendingTerms` of the version's override, else the program's setting as it is now): they enter the replay's
 *   balance only when they mature (so they cover no redemption before), and those still pending at `to` are counted
 *   apart (`pendingAtEnd`), not in `outstanding`. Points pending until their order is confirmed stay pending through
 *   the window (the replay does not know when an order would have been confirmed).
 */

const PAGE = 5_000;
const DAY_MS = 86_400_000;

export interface SimulationRun {
  /** Points every campaign gave in the window (after budgets). */
  pointsIssued: number;
  /** Points this campaign gave, and how many times it applied. */
  campaignPoints: number;
  campaignApplications: number;
  /** Customers who got points from this campaign. */
  customersEarning: number;
  /** Real redemptions and spends this replay's balance would not have covered, and their customers. */
  unaffordableRedemptions: number;
  customersShort: number;
  /** Σ of the replayed customers' balances at `to`. */
  outstanding: number;
  /** Campaign points this replay gave that are still pending at `to` (not in `outstanding`). */
  pendingAtEnd: number;
}

export interface SampleCampaign {
  campaignId: string;
  name: string;
  baselinePoints: number;
  candidatePoints: number;
  /** Why this campaign did not apply to this customer's events, by reason and count, in each replay. */
  baselineSkipped: Partial<Record<SkipReason, number>>;
  candidateSkipped: Partial<Record<SkipReason, number>>;
}

export interface SimulationReport {
  campaign: {
    id: string;
    name: string;
    status: string;
    version: number | null;
    draftVersion: number;
    /**
     * Whether the draft's points go pending (its override, else the program's setting): for how many days, or
     * `untilConfirmed`. Null: spendable at once.
     */
    pending: { days: number | null; untilConfirmed: boolean } | null;
  };
  from: string;
  to: string;
  limits: { maxDays: number; maxEvents: number };
  replayed: { events: number; entries: number; customers: number; skippedEvents: number };
  baseline: SimulationRun;
  candidate: SimulationRun;
  difference: {
    pointsIssued: number;
    customersAffected: number;
    tierMoves: { up: number; down: number };
    /** When the draft's budget ran out in the candidate replay (absent: it did not, or it has none). */
    budgetExhaustedAt?: string;
    /** The difference of the points outstanding at `to` (candidate − baseline). */
    liability: { points: number };
  };
  /** Points issued per day of the program's time zone, both replays (the chart). */
  daily: { day: string; baseline: number; candidate: number }[];
  shortfalls: {
    customers: number;
    redemptions: number;
    list: { customerId: string; email: string | null; at: string; points: number; balanceBefore: number }[];
  };
  sample: {
    customerId: string;
    email: string | null;
    baselinePoints: number;
    candidatePoints: number;
    why: SampleCampaign[];
  }[];
}

interface VersionAt {
  version: number;
  name: string;
  definition: CampaignDefinition;
  attrTypes: AttrTypes;
  from: number;
}
interface CampaignHistory {
  id: string;
  versions: VersionAt[];
  /** Stopped since (ms), when paused or ended now. */
  stoppedAt: number;
}

interface Customer {
  id: string;
  email: string | null;
  memberSince: Date;
  language: string | null;
  tierId: string | null;
  tierPoints: number;
  periodStart: number;
  /** [at ms, fromTierId] of each tier change since `from`, oldest first; `tierAt` walks it forward. */
  changes: [number, string | null][];
  nextChange: number;
  balance: [number, number];
  points: [number, number];
  periodDelta: number;
  byCampaign: Map<string, [number, number]>;
  skipped: Map<string, [Map<SkipReason, number>, Map<SkipReason, number>]>;
  short: [number, number];
  earnedHere: [boolean, boolean];
  /**
   * Each replay's pending points not matured yet: [maturesAt ms (Infinity: until confirmed), points, the
   * `${eventId}|${campaignId}` that gave them].
   */
  pending: [[number, number, string][], [number, number, string][]];
}

const iso = (ms: number) => new Date(ms).toISOString();
const ZERO_UUID = "00000000-0000-0000-0000-000000000000";

export async function simulateCampaign(
  db: Db,
  input: { programId: string; campaignId: string; from: Date; to: Date; now: Date },
): Promise<SimulationReport> {
  const { programId, from, to } = input;
  if (to.getTime() <= from.getTime()) throw validationFailed([{ path: "to", message: "must be after from" }]);
  if (to.getTime() - from.getTime() > SIMULATION_MAX_DAYS * DAY_MS)
    throw validationFailed([{ path: "to", message: `must be at most ${SIMULATION_MAX_DAYS} days after from` }]);
  if (from.getTime() > input.now.getTime())
    throw validationFailed([{ path: "from", message: "must not be after the program's now" }]);

  const campaign = await findRow(input.campaignId, async (id) => {
    const rows = await query<{ id: string; name: string; status: string; draft: unknown; version: number | null }>(
      db,
      sql`SELECT id::text AS id, name, status, draft, version FROM "Campaign"
          WHERE id = ${id}::uuid AND "programId" = ${programId}::uuid`,
    );
    return rows[0];
  });
  if (!campaign) throw notFound("campaign");
  const draft = campaign.draft as CampaignBody | null;
  if (!draft) throw conflict("The campaign has no draft to simulate: change it first (PUT), then simulate.");
  const { name: draftName, ...draftDefinition } = draft;
  if (isLifecycle(draftDefinition.trigger))
    throw conflict("A lifecycle campaign has no events to replay: try it on a test program by advancing its clock.");
  const declared = await eventTypeAttributes(db, programId, draftDefinition.trigger.event);
  if (!declared) throw conflict("The draft's trigger is not a declared event type.");

  const [counted] = await query<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM "CustomerEvent"
        WHERE "programId" = ${programId}::uuid AND "createdAt" >= ${from} AND "createdAt" < ${to}`,
  );
  if ((counted?.n ?? 0) > SIMULATION_MAX_EVENTS)
    throw validationFailed([
      { path: "from", message: `the window holds more than ${SIMULATION_MAX_EVENTS} events: choose a shorter one` },
    ]);

  const [program] = await query<{ timeZone: string; periodMonths: number } & PendingSettings>(
    db,
    sql`SELECT "timeZone", "tierPeriodMonths" AS "periodMonths", "pendingDays", "pendingUntilConfirmed",
               "pendingCountsForTier"
        FROM "Program" WHERE id = ${programId}::uuid`,
  );
  const timeZone = program!.timeZone;
  const tiers = sortTiers(await loadTiers(db, programId));
  const tierById = new Map(tiers.map((t) => [t.id, t]));
  const tierRank = new Map(tiers.map((t, i) => [t.id, i]));

  // Every campaign's versions by time; the simulated one's draft as the candidate's version.
  const versionRows = await query<{
    campaignId: string;
    version: number;
    name: string;
    definition: CampaignDefinition;
    attrTypes: AttrTypes;
    activatedAt: Date;
    status: string;
    updatedAt: Date;
  }>(
    db,
    sql`SELECT v."campaignId"::text AS "campaignId", v.version, v.name, v.definition, v."attrTypes", v."activatedAt",
               c.status, c."updatedAt"
        FROM "CampaignVersion" v JOIN "Campaign" c ON c.id = v."campaignId"
        WHERE v."programId" = ${programId}::uuid ORDER BY v."campaignId", v.version`,
  );
  const histories = new Map<string, CampaignHistory>();
  const names = new Map<string, string>([[campaign.id, draftName]]);
  for (const r of versionRows) {
    let h = histories.get(r.campaignId);
    if (!h) {
      const stopped = r.status === "paused" || r.status === "ended";
      h = { id: r.campaignId, versions: [], stoppedAt: stopped ? new Date(r.updatedAt).getTime() : Infinity };
      histories.set(r.campaignId, h);
    }
    h.versions.push({
      version: r.version,
      name: r.name,
      definition: r.definition,
      attrTypes: r.attrTypes,
      from: new Date(r.activatedAt).getTime(),
    });
    if (r.campaignId !== campaign.id) names.set(r.campaignId, r.name);
  }
  const byType = new Map<string, CampaignHistory[]>();
  for (const h of histories.values())
    for (const type of new Set(
      h.versions.flatMap((v) => (isLifecycle(v.definition.trigger) ? [] : [v.definition.trigger.event])),
    ))
      byType.set(type, [...(byType.get(type) ?? []), h]);
  const candidateVersion: VersionAt = {
    version: (campaign.version ?? 0) + 1,
    name: draftName,
    definition: draftDefinition,
    attrTypes: attrTypesOf(draftDefinition.conditions, declared),
    from: -Infinity,
  };
  const versionAt = (h: CampaignHistory, at: number): VersionAt | null => {
    if (at >= h.stoppedAt) return null;
    let found: VersionAt | null = null;
    for (const v of h.versions) if (v.from <= at) found = v;
    return found;
  };

  // The customers with events in the window: their state at `from`.
  const inWindow = sql`SELECT "customerId" FROM "CustomerEvent"
    WHERE "programId" = ${programId}::uuid AND "createdAt" >= ${from} AND "createdAt" < ${to}`;
  const customerRows = await query<{
    id: string;
    email: string | null;
    start: number;
    memberSince: Date;
    language: string | null;
    tierId: string | null;
    tierPoints: number | null;
    recalculationDate: Date | null;
  }>(
    db,
    sql`SELECT l."customerId"::text AS id, c.email, (l.balance - coalesce(s.points, 0))::int AS start, l."memberSince",
               c.language, ct."currentTierId"::text AS "tierId", ct."currentTierPoints" AS "tierPoints",
               ct."recalculationDate"
        FROM "LoyaltyData" l JOIN "Customer" c ON c.id = l."customerId"
          LEFT JOIN "CustomerTier" ct ON ct."customerId" = l."customerId"
          LEFT JOIN (SELECT "customerId", sum(points)::bigint AS points FROM "LedgerEntry"
                     WHERE "programId" = ${programId}::uuid AND "createdAt" >= ${from} GROUP BY 1) s
            ON s."customerId" = l."customerId"
        WHERE l."programId" = ${programId}::uuid AND l."customerId" IN (${inWindow})`,
  );
  const customers = new Map<string, Customer>();
  for (const r of customerRows) {
    const start = Number(r.start);
    customers.set(r.id, {
      id: r.id,
      email: r.email,
      memberSince: new Date(r.memberSince),
      language: r.language,
      tierId: r.tierId,
      tierPoints: r.tierPoints ?? 0,
      periodStart: r.recalculationDate
        ? addMonths(new Date(r.recalculationDate), -program!.periodMonths).getTime()
        : -Infinity,
      changes: [],
      nextChange: 0,
      balance: [start, start],
      points: [0, 0],
      periodDelta: 0,
      byCampaign: new Map(),
      skipped: new Map(),
      short: [0, 0],
      earnedHere: [false, false],
      pending: [[], []],
    });
  }
  const changes = await query<{ customerId: string; fromTierId: string | null; at: Date }>(
    db,
    sql`SELECT data->>'customerId' AS "customerId", data->>'fromTierId' AS "fromTierId", "createdAt" AS at
        FROM "Event" WHERE "programId" = ${programId}::uuid AND type = 'tier.changed' AND "createdAt" >= ${from}
        ORDER BY "createdAt", id`,
  );
  for (const c of changes) customers.get(c.customerId)?.changes.push([new Date(c.at).getTime(), c.fromTierId]);
  /** The tier the customer had at `at`: before the first change at or after it, else the current one. */
  const tierAt = (c: Customer, at: number) => {
    while (c.nextChange < c.changes.length && c.changes[c.nextChange]![0] < at) c.nextChange++;
    const id = c.nextChange < c.changes.length ? c.changes[c.nextChange]![1] : c.tierId;
    return id ? (tierById.get(id) ?? null) : null;
  };

  // Budgets and per-customer uses before the window, shared by both replays as their start. A campaign's points
  // still pending at the window's start (given before it, neither matured nor cancelled by then: a matured part is
  // the ledger's `earn`, a cancelled one was given back) count as the live budget and use counters count them.
  const pendingAtStart = sql`FROM "PendingPoints" p
          WHERE p."programId" = ${programId}::uuid AND p."createdAt" < ${from} AND p.metadata->>'campaignId' IS NOT NULL
            AND NOT (p.status <> 'pending' AND p."settledAt" < ${from})`;
  const budgetRows = await query<{ campaignId: string; used: number }>(
    db,
    sql`SELECT x."campaignId", sum(x.points)::int AS used FROM (
          SELECT metadata->>'campaignId' AS "campaignId", points FROM "LedgerEntry"
          WHERE "programId" = ${programId}::uuid AND "createdAt" < ${from} AND type = 'earn'
            AND metadata->>'campaignId' IS NOT NULL
          UNION ALL
          SELECT o.metadata->>'campaignId', r.points FROM "LedgerEntry" r JOIN "LedgerEntry" o ON o.id = r."reversesId"
          WHERE r."programId" = ${programId}::uuid AND r."createdAt" < ${from} AND o.metadata->>'campaignId' IS NOT NULL
          UNION ALL
          SELECT p.metadata->>'campaignId', p.points ${pendingAtStart}
        ) x GROUP BY 1`,
  );
  const budgetStart = new Map(budgetRows.map((r) => [r.campaignId, Math.max(0, Number(r.used))]));
  const useRows = await query<{ campaignId: string; customerId: string; window: string; n: number }>(
    db,
    sql`SELECT x."campaignId", x."customerId"::text AS "customerId", x."window", count(*)::int AS n FROM (
          SELECT metadata->>'campaignId' AS "campaignId", "customerId", metadata->>'window' AS "window"
          FROM "LedgerEntry"
          WHERE "programId" = ${programId}::uuid AND "createdAt" < ${from} AND type = 'earn'
            AND metadata->>'window' IS NOT NULL AND "customerId" IN (${inWindow})
          UNION ALL
          -- One use per event: a row split by a partial refund (splitFromId) is one use with its parts.
          SELECT DISTINCT ON (coalesce(p."splitFromId", p.id)) p.metadata->>'campaignId', p."customerId",
                 p.metadata->>'window'
          ${pendingAtStart} AND p.metadata->>'window' IS NOT NULL AND p."customerId" IN (${inWindow})
        ) x GROUP BY 1, 2, 3`,
  );
  const budgets: [Map<string, number>, Map<string, number>] = [new Map(budgetStart), new Map(budgetStart)];
  const usesStart = new Map(useRows.map((r) => [`${r.campaignId}|${r.customerId}|${r.window}`, Number(r.n)]));
  const uses: [Map<string, number>, Map<string, number>] = [new Map(usesStart), new Map(usesStart)];
  /** What each replay gave per event and campaign, for reversals of those entries. */
  const given = new Map<string, [number, number]>();
  /** The per-customer window each replay counted a use of for that event and campaign (a full take-back returns it). */
  const givenWindow = new Map<string, [string | null, string | null]>();
  const daily = new Map<string, [number, number]>();
  const applications: [number, number] = [0, 0];
  const issued: [number, number] = [0, 0];
  const shortList: SimulationReport["shortfalls"]["list"] = [];
  let shortRedemptions = 0;
  const draftBudget = draftDefinition.limits.budgetPoints;
  let budgetExhaustedAt: number | null = null;
  let skippedEvents = 0;
  let replayedEvents = 0;
  let replayedEntries = 0;

  /** The replay's pending points of the customer due by `atMs` enter its balance. */
  const mature = (c: Customer, atMs: number) => {
    for (const run of [0, 1] as const) {
      if (!c.pending[run].length) continue;
      c.pending[run] = c.pending[run].filter(([due, points]) => {
        if (due > atMs) return true;
        c.balance[run] += points;
        return false;
      });
    }
  };

  const replayEvent = (e: EventRow) => {
    const c = customers.get(e.customerId);
    if (!c) {
      skippedEvents++;
      return;
    }
    replayedEvents++;
    const at = new Date(e.createdAt);
    const atMs = at.getTime();
    mature(c, atMs);
    const tier = tierAt(c, atMs);
    const nowLocal = zonedTime(at, timeZone);
    const day = windowKey("day", nowLocal);
    const triggered = byType.get(e.type) ?? [];
    for (const run of [0, 1] as const) {
      const campaigns: CampaignVersionState[] = [];
      const state = (campaignId: string, v: VersionAt): CampaignVersionState => {
        const w = limitWindow(v.definition, nowLocal);
        return {
          campaignId,
          version: v.version,
          definition: v.definition,
          attrTypes: v.attrTypes,
          budgetUsed: budgets[run].get(campaignId) ?? 0,
          customerUses: w === null ? 0 : (uses[run].get(`${campaignId}|${c.id}|${w}`) ?? 0),
        };
      };
      for (const h of triggered) {
        if (run === 1 && h.id === campaign.id) continue;
        const v = versionAt(h, atMs);
        if (v && triggerType(v.definition.trigger) === e.type) campaigns.push(state(h.id, v));
      }
      if (run === 1 && triggerType(draftDefinition.trigger) === e.type)
        campaigns.push(state(campaign.id, candidateVersion));
      if (campaigns.length === 0) continue;
      const evaluation = evaluate({
        event: { type: e.type, occurredAt: new Date(e.occurredAt), attributes: e.attributes },
        customer: {
          tier: tier?.name ?? null,
          tierFactor: tier?.factor ?? null,
          balance: c.balance[run],
          memberSince: c.memberSince,
          language: c.language,
        },
        campaigns,
        now: at,
        timeZone,
      });
      for (const s of evaluation.skipped) {
        let pair = c.skipped.get(s.campaignId);
        if (!pair) c.skipped.set(s.campaignId, (pair = [new Map(), new Map()]));
        pair[run].set(s.reason, (pair[run].get(s.reason) ?? 0) + 1);
        if (run === 1 && s.campaignId === campaign.id && s.reason === "budget_exhausted") budgetExhaustedAt ??= atMs;
      }
      for (const a of evaluation.applied) {
        const version = campaigns.find((v) => v.campaignId === a.campaignId)!;
        if (a.window !== null) {
          const key = `${a.campaignId}|${c.id}|${a.window}`;
          uses[run].set(key, (uses[run].get(key) ?? 0) + 1);
        }
        if (a.campaignId === campaign.id) {
          applications[run]++;
          if (a.points > 0) c.earnedHere[run] = true;
        }
        if (a.points <= 0) continue;
        // Pending or spendable: the live write's rule (pending-rules.ts), on the version's override.
        const terms = pendingTerms(pendingOptionOf(version.definition), program!, at);
        if (terms) c.pending[run].push([terms.maturesAt?.getTime() ?? Infinity, a.points, `${e.id}|${a.campaignId}`]);
        else c.balance[run] += a.points;
        c.points[run] += a.points;
        issued[run] += a.points;
        if (atMs >= c.periodStart) c.periodDelta += run === 1 ? a.points : -a.points;
        let per = c.byCampaign.get(a.campaignId);
        if (!per) c.byCampaign.set(a.campaignId, (per = [0, 0]));
        per[run] += a.points;
        let d = daily.get(day);
        if (!d) daily.set(day, (d = [0, 0]));
        d[run] += a.points;
        const key = `${e.id}|${a.campaignId}`;
        let g = given.get(key);
        if (!g) given.set(key, (g = [0, 0]));
        let gw = givenWindow.get(key);
        if (!gw) givenWindow.set(key, (gw = [null, null]));
        gw[run] = a.window;
        g[run] += a.points;
        if (version.definition.limits.budgetPoints !== undefined) {
          const used = (budgets[run].get(a.campaignId) ?? 0) + a.points;
          budgets[run].set(a.campaignId, used);
          if (run === 1 && a.campaignId === campaign.id && draftBudget !== undefined && used >= draftBudget)
            budgetExhaustedAt ??= atMs;
        }
      }
    }
  };

  const replayEntry = (e: EntryRow) => {
    const c = customers.get(e.customerId);
    if (!c) return;
    replayedEntries++;
    mature(c, new Date(e.createdAt).getTime());
    const points = Number(e.points);
    for (const run of [0, 1] as const) {
      if (e.revCampaignId && e.revEventId) {
        // A reversal of a campaign's entry: the same share of what this replay gave for that event and campaign.
        const g = given.get(`${e.revEventId}|${e.revCampaignId}`);
        const real = Number(e.revOfPoints ?? 0);
        if (!g || real <= 0) continue;
        const take = Math.min(g[run], Math.round((g[run] * -points) / real));
        g[run] -= take;
        // From the replay's points of that event still pending first (they never reached its balance), then the balance.
        let left = take;
        for (const p of c.pending[run]) {
          if (left === 0) break;
          if (p[2] !== `${e.revEventId}|${e.revCampaignId}`) continue;
          const cut = Math.min(p[1], left);
          p[1] -= cut;
          left -= cut;
        }
        c.balance[run] -= left;
        const used = budgets[run].get(e.revCampaignId);
        if (used !== undefined) budgets[run].set(e.revCampaignId, Math.max(0, used - take));
        // The customer's use comes back once nothing of what this replay gave for the event is left (release.ts).
        const w = givenWindow.get(`${e.revEventId}|${e.revCampaignId}`)?.[run] ?? null;
        const useKey = `${e.revCampaignId}|${c.id}|${w}`;
        if (w !== null && g[run] === 0 && take > 0 && (uses[run].get(useKey) ?? 0) > 0)
          uses[run].set(useKey, uses[run].get(useKey)! - 1);
        continue;
      }
      const before = c.balance[run];
      if (e.type === "expire") c.balance[run] = Math.max(0, before + points);
      else c.balance[run] = before + points;
      if (points < 0 && (e.type === "redeem" || e.type === "spend") && before + points < 0) {
        c.short[run]++;
        if (run === 1) {
          shortRedemptions++;
          if (shortList.length < SIMULATION_SAMPLE)
            shortList.push({
              customerId: c.id,
              email: c.email,
              at: new Date(e.createdAt).toISOString(),
              points,
              balanceBefore: before,
            });
        }
      }
    }
  };

  // Both streams in time order, events before entries at the same instant (an event's own entries share its instant).
  const events = pages<EventRow>((at, id) =>
    query<EventRow>(
      db,
      sql`SELECT id::text AS id, "customerId"::text AS "customerId", type, "occurredAt", attributes, "createdAt"
          FROM "CustomerEvent"
          WHERE "programId" = ${programId}::uuid AND "createdAt" < ${to}
            AND ("createdAt" > ${at} OR ("createdAt" = ${at} AND id > ${id}::uuid))
          ORDER BY "createdAt", id LIMIT ${int(PAGE)}`,
    ),
  );
  const entries = pages<EntryRow>((at, id) =>
    query<EntryRow>(
      db,
      sql`SELECT x.id::text AS id, x."customerId"::text AS "customerId", x.type, x.points, x."createdAt",
                 x."revCampaignId", x."revEventId", x."revOfPoints" FROM (
          SELECT e.id, e."customerId", e.type, e.points, e."createdAt",
                 o.metadata->>'campaignId' AS "revCampaignId", o.metadata->>'eventId' AS "revEventId",
                 o.points AS "revOfPoints"
          FROM "LedgerEntry" e LEFT JOIN "LedgerEntry" o ON o.id = e."reversesId"
          WHERE e."programId" = ${programId}::uuid AND e."createdAt" < ${to}
            AND (e."createdAt" > ${at} OR (e."createdAt" = ${at} AND e.id > ${id}::uuid))
            AND NOT (e.type = 'earn' AND e.metadata->>'campaignId' IS NOT NULL)
          UNION ALL
          -- A refund's cancel of a campaign's pending points, as a reversal of the points that event gave (the row
          -- first written for it, "r", plus every part split off it).
          SELECT p.id, p."customerId", 'pending_cancelled', -p.points, p."settledAt",
                 p.metadata->>'campaignId', p.metadata->>'eventId',
                 (r.points + coalesce((SELECT sum(s.points) FROM "PendingPoints" s WHERE s."splitFromId" = r.id), 0))::int
          FROM "PendingPoints" p JOIN "PendingPoints" r ON r.id = coalesce(p."splitFromId", p.id)
          WHERE p."programId" = ${programId}::uuid AND p.status = 'cancelled' AND p."settledAt" < ${to}
            AND (p."settledAt" > ${at} OR (p."settledAt" = ${at} AND p.id > ${id}::uuid))
            AND p.metadata->>'campaignId' IS NOT NULL AND p.metadata->>'eventId' IS NOT NULL
        ) x ORDER BY x."createdAt", x.id LIMIT ${int(PAGE)}`,
    ),
  );
  const start = { at: new Date(from.getTime() - 1), id: ZERO_UUID };
  let ev = await events.next(start);
  let en = await entries.next(start);
  while (ev || en) {
    if (en && (!ev || new Date(en.createdAt).getTime() < new Date(ev.createdAt).getTime())) {
      replayEntry(en);
      en = await entries.next();
    } else {
      replayEvent(ev!);
      ev = await events.next();
    }
  }

  // Summaries.
  const run = (r: 0 | 1): SimulationRun => {
    let customersEarning = 0;
    let customersShort = 0;
    let outstanding = 0;
    let pendingAtEnd = 0;
    let campaignPoints = 0;
    for (const c of customers.values()) {
      if (c.earnedHere[r]) customersEarning++;
      if (c.short[r] > 0) customersShort++;
      // Pending points due before `to` matured in the window (the window ends before `to`: exclusive).
      for (const [due, points] of c.pending[r]) {
        if (due < to.getTime()) c.balance[r] += points;
        else pendingAtEnd += points;
      }
      c.pending[r] = [];
      outstanding += c.balance[r];
      campaignPoints += c.byCampaign.get(campaign.id)?.[r] ?? 0;
    }
    return {
      pointsIssued: issued[r],
      campaignPoints,
      campaignApplications: applications[r],
      customersEarning,
      unaffordableRedemptions: r === 1 ? shortRedemptions : [...customers.values()].reduce((n, c) => n + c.short[0], 0),
      customersShort,
      outstanding,
      pendingAtEnd,
    };
  };
  const baseline = run(0);
  const candidate = run(1);
  let up = 0;
  let down = 0;
  let affected = 0;
  for (const c of customers.values()) {
    if (c.points[0] !== c.points[1]) affected++;
    if (c.periodDelta === 0 || c.tierId === null) continue;
    const now = tierRank.get(c.tierId) ?? -1;
    if (c.periodDelta > 0) {
      const reached = tierForPoints(tiers, c.tierPoints + c.periodDelta);
      if (reached && (tierRank.get(reached.id) ?? -1) > now) up++;
    } else {
      const kept = tierAtClose(tiers, c.tierPoints)?.id;
      const keptAfter = tierAtClose(tiers, Math.max(0, c.tierPoints + c.periodDelta))?.id;
      if (kept && keptAfter && (tierRank.get(keptAfter) ?? -1) < (tierRank.get(kept) ?? -1)) down++;
    }
  }
  const counts = (m: Map<SkipReason, number> | undefined) => Object.fromEntries(m ?? []);
  const sample = [...customers.values()]
    .filter((c) => c.points[0] !== c.points[1])
    .sort((a, b) => Math.abs(b.points[1] - b.points[0]) - Math.abs(a.points[1] - a.points[0]) || (a.id < b.id ? -1 : 1))
    .slice(0, SIMULATION_SAMPLE)
    .map((c) => ({
      customerId: c.id,
      email: c.email,
      baselinePoints: c.points[0],
      candidatePoints: c.points[1],
      why: [...new Set([...c.byCampaign.keys(), ...(c.skipped.has(campaign.id) ? [campaign.id] : [])])]
        .map((id) => ({ id, per: c.byCampaign.get(id) ?? [0, 0] }))
        .filter(({ id, per }) => per[0] !== per[1] || id === campaign.id)
        .map(({ id, per }) => ({
          campaignId: id,
          name: names.get(id) ?? id,
          baselinePoints: per[0],
          candidatePoints: per[1],
          baselineSkipped: counts(c.skipped.get(id)?.[0]),
          candidateSkipped: counts(c.skipped.get(id)?.[1]),
        })),
    }));
  const shortCustomers = new Set<string>();
  for (const c of customers.values()) if (c.short[1] > 0) shortCustomers.add(c.id);

  return {
    campaign: {
      id: campaign.id,
      name: draftName,
      status: campaign.status,
      version: campaign.version,
      draftVersion: candidateVersion.version,
      pending: draftPending(draftDefinition, program!, input.now),
    },
    from: from.toISOString(),
    to: to.toISOString(),
    limits: { maxDays: SIMULATION_MAX_DAYS, maxEvents: SIMULATION_MAX_EVENTS },
    replayed: { events: replayedEvents, entries: replayedEntries, customers: customers.size, skippedEvents },
    baseline,
    candidate,
    difference: {
      pointsIssued: candidate.pointsIssued - baseline.pointsIssued,
      customersAffected: affected,
      tierMoves: { up, down },
      ...(budgetExhaustedAt !== null ? { budgetExhaustedAt: iso(budgetExhaustedAt) } : {}),
      liability: { points: candidate.outstanding - baseline.outstanding },
    },
    daily: [...daily.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([day, [b, c]]) => ({ day, baseline: b, candidate: c })),
    shortfalls: { customers: shortCustomers.size, redemptions: shortRedemptions, list: shortList },
    sample,
  };
}

/** The draft's pending terms in days (the one rule, pending-rules.ts `pendingTerms`, at an instant). */
function draftPending(definition: CampaignDefinition, program: PendingSettings, now: Date) {
  const terms = pendingTerms(pendingOptionOf(definition), program, now);
  if (!terms) return null;
  if (!terms.maturesAt) return { days: null, untilConfirmed: true };
  return { days: Math.round((terms.maturesAt.getTime() - now.getTime()) / DAY_MS), untilConfirmed: false };
}

interface EventRow {
  id: string;
  customerId: string;
  type: string;
  occurredAt: Date;
  attributes: Record<string, unknown>;
  createdAt: Date;
}
interface EntryRow {
  id: string;
  customerId: string;
  type: string;
  points: number;
  createdAt: Date;
  revCampaignId: string | null;
  revEventId: string | null;
  revOfPoints: number | null;
}

/** Rows in (createdAt, id) order, a page at a time by keyset, one at a time to the caller. */
function pages<T extends { id: string; createdAt: Date }>(load: (at: Date, id: string) => Promise<T[]>) {
  let buffer: T[] = [];
  let i = 0;
  let done = false;
  let cursor = { at: new Date(0), id: ZERO_UUID };
  return {
    async next(start?: { at: Date; id: string }): Promise<T | null> {
      if (start) cursor = start;
      if (i >= buffer.length) {
        if (done) return null;
        buffer = await load(cursor.at, cursor.id);
        i = 0;
        if (buffer.length < PAGE) done = true;
        if (buffer.length === 0) return null;
        const last = buffer[buffer.length - 1]!;
        cursor = { at: new Date(last.createdAt), id: last.id };
      }
      return buffer[i++]!;
    },
  };
}
