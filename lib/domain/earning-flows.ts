import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { requireRow } from "@/lib/db/require-row";
import { conflict, earningFlowNotFound, notFound, uniqueOr409, validationFailed } from "@/lib/errors";
import { checkRunParams, declareFlowParams, storedFlowParams, type FlowParamInput } from "./flow-params";
import { changeBalance, changeRefusal } from "./ledger";
import { closeReferral } from "./referrals";
import { lockedStatement, runLockedWrite } from "./locked-write";
import { lockBalance } from "./balance-lock";
import { awardPoints, evaluate } from "./campaigns/evaluate";
import { eventPlan, pendingOfEvaluation, perEventShape, type VersionInfo } from "./campaigns/event-write";
import { pendingOverrideProblem, type PendingSettings } from "./pending-rules";
import { writePending } from "./pending-write";
import type { CampaignLimits, Effect, LimitWindow } from "./campaigns/definition";
import { requireProgram } from "./programs";
import { programNow } from "./clock";
import { recalculateIfDue } from "./tiers-engine";
import type { CapReason, FlowRecurrence } from "./vocabulary";

export interface EarningFlowInput {
  programId: string;
  key: string;
  name?: string | null;
  points?: number | null;
  pointsPerUnit?: number | null;
  param?: string | null;
  /** The parameters a run may send (lib/domain/flow-params.ts); the per-unit param is declared if missing. */
  params?: FlowParamInput[] | null;
  capPerDay?: number | null;
  capTotal?: number | null;
  once?: boolean;
  /** Overrides the program's pending setting (pending-rules.ts): days (0: at once), or until the order is confirmed. */
  pendingDays?: number | null;
  pending?: "until_confirmed" | null;
}

/** How a flow earns and what a run may send, checked as a whole: fixed points xor points per unit of a declared param. */
function flowDefinition(input: Omit<EarningFlowInput, "programId" | "key">) {
  const fixed = input.points != null;
  const perUnit = input.pointsPerUnit != null;
  if (fixed === perUnit)
    throw validationFailed([{ path: "points", message: "give either points or pointsPerUnit with param" }]);
  if (perUnit && !input.param)
    throw validationFailed([{ path: "param", message: "pointsPerUnit needs the name of a numeric param" }]);
  const both = pendingOverrideProblem(input);
  if (both) throw validationFailed([both]);
  const declared = declareFlowParams(input.params ?? [], perUnit ? input.param! : null);
  if (declared.problems.length) throw validationFailed(declared.problems);
  return {
    name: input.name ?? null,
    points: fixed ? input.points! : null,
    pointsPerUnit: perUnit ? input.pointsPerUnit! : null,
    param: perUnit ? input.param! : null,
    params: declared.params as object[],
    capPerDay: input.capPerDay ?? null,
    capTotal: input.capTotal ?? null,
    once: input.once ?? false,
    pendingDays: input.pending === "until_confirmed" ? null : (input.pendingDays ?? null),
    pendingUntilConfirmed: input.pending === "until_confirmed",
  };
}

export async function createEarningFlow(db: Db, input: EarningFlowInput): Promise<{ earningFlowId: string }> {
  const definition = flowDefinition(input);
  await requireProgram(db, input.programId);
  const flow = await uniqueOr409(
    () =>
      db.earningFlow.create({
        data: { programId: input.programId, key: input.key, ...definition },
        select: { id: true },
      }),
    () =>
      conflict(`The program already has an earning flow with key "${input.key}".`, [
        { path: "key", message: "is taken" },
      ]),
  );
  return { earningFlowId: flow.id };
}

/** The program's earning flow by id, or 404 `not_found` (also for another program's flow). */
export async function requireEarningFlow(db: Db, programId: string, flowId: string) {
  return requireRow(
    flowId,
    (id) => db.earningFlow.findFirst({ where: { id, programId } }),
    () => notFound("earning flow"),
  );
}

/**
 * Redefines a flow of the program (everything but its key, which integrators call it by): the same rules as a new
 * flow. Runs from now on use the new definition; caps count the points the flow gave before, whatever it was then.
 */
export async function updateEarningFlow(
  db: Db,
  programId: string,
  flowId: string,
  input: Omit<EarningFlowInput, "programId" | "key">,
) {
  const definition = flowDefinition(input);
  await requireEarningFlow(db, programId, flowId);
  await db.earningFlow.update({ where: { id: flowId }, data: definition, select: { id: true } });
  return { earningFlowId: flowId };
}

/** Switches a flow off (runs are refused with 404 `earning_flow_not_found`, as for an unknown key) or on again. */
export async function setEarningFlowActive(db: Db, programId: string, flowId: string, active: boolean) {
  await requireEarningFlow(db, programId, flowId);
  await db.earningFlow.update({ where: { id: flowId }, data: { active }, select: { id: true } });
  return { earningFlowId: flowId, active };
}

/**
 * An earning flow as a campaign of the one engine (campaigns/evaluate.ts): the flow's definition read as a campaign
 * version, triggered by the event type `flow:<key>` (no declared event type can have a `:`), whose attributes are the
 * run's params. Its one effect awards the fixed points, or points per unit of the per-unit param (× the tier factor,
 * then rounded down: `factorFirst`); `once` is a per-customer limit of one earning run in the customer's lifetime;
 * `capTotal` and `capPerDay` are per-customer points caps, lifetime and per day (the day is UTC's: flows are
 * evaluated in UTC, they have no schedule). The version is the flow's row as it is now: a flow is not versioned
 * (its caps count what it gave before, whatever it was then). Its pending override (`pendingDays`,
 * `pendingUntilConfirmed`) is the campaign's (pending-rules.ts `pendingOptionOf`); none: the program's setting.
 */
export function flowCampaign(flow: {
  id: string;
  key: string;
  name: string | null;
  points: number | null;
  pointsPerUnit: number | null;
  param: string | null;
  capPerDay: number | null;
  capTotal: number | null;
  once: boolean;
  pendingDays?: number | null;
  pendingUntilConfirmed?: boolean;
}): VersionInfo {
  const effect: Effect =
    flow.points != null
      ? { type: "award_points", points: flow.points }
      : {
          type: "award_points",
          per: `event.${flow.param}`,
          rate: flow.pointsPerUnit!,
          round: "down",
          factorFirst: true,
        };
  const limits: CampaignLimits = {};
  if (flow.once) limits.perCustomer = { count: 1, window: "lifetime" };
  const caps: NonNullable<CampaignLimits["pointsCaps"]> = [];
  if (flow.capTotal != null) caps.push({ points: flow.capTotal, window: "lifetime" });
  if (flow.capPerDay != null) caps.push({ points: flow.capPerDay, window: "day" });
  if (caps.length) limits.pointsCaps = caps;
  return {
    campaignId: flow.id,
    name: flow.name ?? flow.key,
    version: 1,
    definition: {
      trigger: { event: flowEventType(flow.key) },
      conditions: null,
      effects: [effect],
      limits,
      schedule: {},
      priority: 0,
      stacking: "stack",
      ...(flow.pendingUntilConfirmed
        ? { pending: "until_confirmed" as const }
        : flow.pendingDays != null
          ? { pendingDays: flow.pendingDays }
          : {}),
    },
    attrTypes: {},
  };
}

/** The event type that runs a flow: `flow:<key>`. */
export const flowEventType = (key: string) => `flow:${key}`;

/** Which cap a flow's run was cut by, from the engine's points cap window. */
const CAP_OF_WINDOW: Partial<Record<LimitWindow, CapReason>> = { lifetime: "cap_total", day: "cap_per_day" };

export interface EarningOutcome {
  pointsEarned: number;
  balance: number;
  /** The ledger entry JSON text, or null when nothing was earned or the points went pending. */
  transactionJson: string | null;
  /** The pending points JSON text (API.md §4 shape) when the run's points went pending, else null. */
  pendingJson: string | null;
  capped: CapReason | null;
}

interface RunInput {
  programId: string;
  customerId: string;
  flowKey: string;
  params: Record<string, unknown>;
  actor: string;
  idempotencyKey?: string | null;
  orderId?: string | null;
  now?: Date;
}

interface FlowSnapshot {
  id: string;
  key: string;
  name: string | null;
  points: number | null;
  pointsPerUnit: number | null;
  param: string | null;
  params: unknown;
  capPerDay: number | null;
  capTotal: number | null;
  once: boolean;
  active: boolean;
  pendingDays: number | null;
  pendingUntilConfirmed: boolean;
  /** The program's pending setting. */
  program: PendingSettings;
  /** The customer's state (null: no loyalty data). */
  balance: number | null;
  memberSince: Date | null;
  tier: string | null;
  factor: number | null;
  /** The balance and tier rows' versions the decision is taken on ("xmin:xmin"). */
  seen: string | null;
  /** The flow's ledger entries of the customer: how many, their points, and today's (UTC) points. */
  runs: number;
  total: number;
  today: number;
}

/**
 * One read: the flow by key, the program's pending setting, the customer's balance, tier and rows' versions, and
 * what the flow gave the customer (counted from its ledger entries, as its caps always were: all of them, today's in
 * the UTC day of `now`; and its points still pending, so that pending points cannot run a capped flow twice).
 */
const FLOW_SNAPSHOT_SQL = `
SELECT f.id::text AS id, f.key, f.name, f.points, f."pointsPerUnit", f.param, f.params, f."capPerDay", f."capTotal",
       f.once, f.active, f."pendingDays", f."pendingUntilConfirmed",
       json_build_object('pendingDays', p."pendingDays", 'pendingUntilConfirmed', p."pendingUntilConfirmed",
                         'pendingCountsForTier', p."pendingCountsForTier") AS program,
       s.balance, s."memberSince", s.tier, s.factor, s.seen,
       coalesce(u.runs, 0) AS runs, coalesce(u.total, 0) AS total, coalesce(u.today, 0) AS today
FROM "EarningFlow" f
  LEFT JOIN LATERAL (
    SELECT l.balance, l."memberSince", t.name AS tier, t.factor, l.xmin::text || ':' || ct.xmin::text AS seen
    FROM "LoyaltyData" l JOIN "CustomerTier" ct ON ct."programId" = l."programId" AND ct."customerId" = l."customerId"
      LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
    WHERE l."programId" = $1::uuid AND l."customerId" = $3::uuid
  ) s ON true
  LEFT JOIN LATERAL (
    SELECT count(*)::int AS runs, coalesce(sum(e.points), 0)::int AS total,
           coalesce(sum(e.points) FILTER (WHERE e."createdAt" >= date_trunc('day', $4::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)::int AS today
    FROM (
      SELECT e.points, e."createdAt" FROM "LedgerEntry" e
      WHERE e."programId" = $1::uuid AND e."customerId" = $3::uuid AND e."earningFlowId" = f.id
      UNION ALL
      SELECT x.points, x."createdAt" FROM "PendingPoints" x
      WHERE x."programId" = $1::uuid AND x."customerId" = $3::uuid AND x."earningFlowId" = f.id AND x.status = 'pending'
    ) e
    WHERE (f.once OR f."capTotal" IS NOT NULL OR f."capPerDay" IS NOT NULL)
  ) u ON true
  JOIN "Program" p ON p.id = f."programId"
WHERE f."programId" = $1::uuid AND f.key = $2::text`;

/** What a flow gave the customer so far (its ledger entries), and the customer's state a run is decided on. */
export interface FlowRunState {
  balance: number;
  memberSince: Date;
  tier: string | null;
  factor: number | null;
  /** The flow's ledger entries of the customer: how many, their points, and the points of the UTC day of now. */
  runs: number;
  total: number;
  today: number;
}

/**
 * A run decided by the one evaluator: the flow's campaign (`flowCampaign`) on the customer's state and uses, and
 * what the flow's answer says: the points earned and the cap that stopped or cut them (`once`, `cap_total`,
 * `cap_per_day`; null when none did). Pure; test/unit/flow-engine-property.test.ts checks it against the flows'
 * rule as it was written before the engine ran them.
 */
export function decideFlowRun(
  flow: Parameters<typeof flowCampaign>[0],
  state: FlowRunState,
  values: Record<string, number>,
  now: Date,
) {
  const version = flowCampaign(flow);
  const caps = version.definition.limits.pointsCaps ?? [];
  const used = (c: (typeof caps)[number]) => (c.window === "day" ? state.today : state.total);
  const evaluation = evaluate({
    event: { type: flowEventType(flow.key), occurredAt: now, attributes: values },
    customer: {
      tier: state.tier,
      tierFactor: state.factor,
      balance: state.balance,
      memberSince: new Date(state.memberSince),
      language: null,
    },
    campaigns: [{ ...version, budgetUsed: 0, customerUses: state.runs, customerPoints: caps.map(used) }],
    now,
    timeZone: "UTC",
  });
  const applied = evaluation.applied[0];
  let capped: CapReason | null = null;
  if (applied) capped = applied.capped ? (CAP_OF_WINDOW[applied.capped] ?? null) : null;
  else if (evaluation.skipped[0]?.reason === "customer_limit_reached") {
    // `once`: a run that would have earned is capped by it; a cap already exceeded (the flow was redefined below
    // what it gave) names itself instead, as a cut to 0 would.
    const effect = version.definition.effects[0] as Extract<Effect, { type: "award_points" }>;
    if (awardPoints(effect, values, state.factor) > 0) capped = "once";
    for (const c of caps) if (c.points - used(c) < 0) capped = CAP_OF_WINDOW[c.window] ?? capped;
  }
  return { version, evaluation, pointsEarned: applied?.points ?? 0, capped };
}

/**
 * A run decided by the engine: the flow (404 `earning_flow_not_found` when unknown or switched off), the params
 * checked against its declaration (400 by path; only declared values reach the ledger), the flow's campaign
 * (`flowCampaign`) evaluated by the one evaluator on the customer's state and the flow's uses, and the values of
 * the one write (campaigns/event-write.ts `perEventShape`) with the flow's answer. `locked`: read under the
 * customer's balance row lock (no version guard needed).
 */
async function flowRunPlan(db: Db, input: RunInput, locked: boolean) {
  const now = input.now ?? programNow(input.programId);
  const [snap] = await db.$queryRawUnsafe<FlowSnapshot[]>(
    FLOW_SNAPSHOT_SQL,
    input.programId,
    input.flowKey,
    input.customerId,
    now.toISOString(),
  );
  if (!snap || !snap.active) throw earningFlowNotFound(input.flowKey);
  const run = checkRunParams(storedFlowParams(snap.params), input.params);
  if (run.problems.length) throw validationFailed(run.problems);
  if (snap.balance === null || snap.memberSince === null) throw new Error("customer without loyalty data");
  const { balance, memberSince } = snap;
  const state = { ...snap, balance, memberSince };
  const { version, evaluation, pointsEarned, capped } = decideFlowRun(snap, state, run.values, now);
  // Points that go pending (the flow's override, else the program's setting) are the locked path's to write.
  const pending = pendingOfEvaluation(evaluation, new Map([[version.campaignId, version]]), snap.program, now);
  if (pending.size && !locked) return null;
  const type = flowEventType(snap.key);
  const plan = eventPlan(
    {
      programId: input.programId,
      customerId: input.customerId,
      type,
      occurredAt: now,
      orderId: input.orderId ?? null,
      attributes: run.values,
      actor: input.actor,
      idempotencyKey: input.idempotencyKey ?? null,
      now,
    },
    evaluation,
    new Map([[version.campaignId, version]]),
    null,
    {
      earningFlowId: snap.id,
      reason: snap.name ?? snap.key,
      metadata: { flowKey: snap.key, params: run.values },
      seen: locked ? null : snap.seen,
      head: `{"pointsEarned":${pointsEarned},"balance":`,
      tail: `,"capped":${JSON.stringify(capped)},"pending":null}`,
    },
    undefined,
    pending,
  );
  return {
    values: plan.values,
    shape: plan.shape,
    pointsEarned,
    capped,
    pendingEntries: plan.pendingEntries,
    flowId: snap.id,
  };
}

/**
 * Runs a flow for a customer in the caller's transaction (the dashboard, the JeriCommerce alias, and the requests the
 * one-statement path hands over). The flow is a campaign of the one engine (`flowCampaign`): base points (fixed, or
 * per unit of a numeric param) × the current tier's factor, rounded down, then limited by the flow's caps; a run
 * capped to nothing earns 0 and says which cap. `params` must match the flow's declaration (flow-params.ts); only
 * declared values reach the ledger. The write is the engine's one statement (`perEventShape`) on both paths, run
 * after the balance row lock (so the caps see every earlier run) and after what is due is settled: an ended tier
 * period is closed first (the factor is the tier's after it), and when the statement finds that the run completes
 * an open referral (`referral_due`), the referral is closed and the statement runs again, then both sides are
 * rewarded after the earn (referrals.ts `closeReferral`, as `changeBalance` does).
 */
export async function executeEarningFlow(tx: Tx, input: RunInput): Promise<EarningOutcome> {
  const now = input.now ?? programNow(input.programId);
  await lockBalance(tx, input.programId, input.customerId);
  await recalculateIfDue(tx, input.programId, input.customerId, now);
  const plan = await flowRunPlan(tx, { ...input, now }, true);
  if (!plan) throw new Error("a locked run is never handed over");
  const { values, pointsEarned, capped } = plan;
  const statement = lockedFlowSql(plan.shape);
  let done = await runLockedWrite(tx, statement, values);
  let referral = null;
  if ("refusal" in done && done.refusal === "referral_due") {
    const { programId, customerId } = input;
    referral = await closeReferral(tx, { programId, customerId, source: "earning_flow", now, points: null });
    done = await runLockedWrite(tx, statement, values);
  }
  if ("refusal" in done) {
    if (done.refusal === "missing") throw new Error("customer without loyalty data");
    throw changeRefusal(done.refusal) ?? new Error(`earning-flow run refused under the row lock: ${done.refusal}`);
  }
  // The run's points that go pending: its pending points instead of an entry (pending-write.ts).
  let pendingJson: string | null = null;
  for (const p of plan.pendingEntries) {
    const { programId, customerId, actor } = input;
    const change = {
      ...{ programId, customerId, actor, points: p.points, type: "earn" as const, source: "earning_flow" as const },
      ...{ reason: p.reason, metadata: p.metadata as Record<string, unknown>, earningFlowId: plan.flowId, now },
      orderId: input.orderId ?? null,
    };
    pendingJson = (await writePending(tx, change, p.terms, p.id)).pendingJson;
  }
  if (referral) await referral.reward((award) => changeBalance(tx, award));
  const r = done.row;
  return {
    pointsEarned,
    balance: Number(r.balance),
    transactionJson: r.entry == null ? null : String(r.entry),
    pendingJson,
    capped,
  };
}

const lockedFlowSql = perEventShape((write) => lockedStatement(write, ["balance", "entry"]));

/**
 * The values of the one write (`perEventShape`, after the keyed statement's five) for a run on the hot path: one read
 * (`flowRunPlan`), the engine's decision, guarded by the rows' versions it read. The time is the program's clock's.
 * Null: a run whose points go pending, handed to the locked path (`executeEarningFlow`).
 */
export async function earningFlowRunValues(db: Db, input: RunInput) {
  const plan = await flowRunPlan(db, input, false);
  return plan ? { values: plan.values, shape: plan.shape } : null;
}

export interface FlowAllowance {
  /** Runs that would still earn points for the customer now; null when unlimited or unknowable (per-unit points). */
  remainingExecutions: number | null;
  recurrence: FlowRecurrence;
}

/**
 * What is left of a flow for a customer (the JeriCommerce execute alias's answer, API.md §3), read in the caller's
 * transaction after the run: the flow and the customer's uses by the runs' own read (`FLOW_SNAPSHOT_SQL`), then
 * `remainingRuns`, which asks the runs' own decision (`decideFlowRun`).
 */
export async function flowAllowance(
  db: Db,
  input: { programId: string; customerId: string; flowKey: string; now?: Date },
): Promise<FlowAllowance> {
  const now = input.now ?? programNow(input.programId);
  const [snap] = await db.$queryRawUnsafe<FlowSnapshot[]>(
    FLOW_SNAPSHOT_SQL,
    input.programId,
    input.flowKey,
    input.customerId,
    now.toISOString(),
  );
  if (!snap) throw earningFlowNotFound(input.flowKey);
  const recurrence: FlowRecurrence = snap.once ? "once" : snap.capPerDay != null ? "daily" : "unlimited";
  const state = { ...snap, balance: snap.balance ?? 0, memberSince: snap.memberSince ?? now };
  return { remainingExecutions: remainingRuns(snap, state, now), recurrence };
}

/**
 * How many runs would still earn points now: the runs `decideFlowRun` would award one after the other, each decided
 * on the uses the earlier ones leave (one more run, its points in the lifetime and today's totals), so the answer
 * and the runs cannot disagree. Runs that earn the same whole points before a points cap (the engine's
 * `pointsCaps`) is reached are counted in one step. Null when the flow has no limit (unlimited), or when its points
 * are per unit of a param (a run's points are not known before it) and its limits still have room. Pure.
 */
export function remainingRuns(flow: Parameters<typeof flowCampaign>[0], state: FlowRunState, now: Date): number | null {
  const { limits } = flowCampaign(flow).definition;
  const caps = limits.pointsCaps ?? [];
  if (!limits.perCustomer && caps.length === 0) return null;
  const room = (s: FlowRunState) => Math.min(...caps.map((c) => c.points - (c.window === "day" ? s.today : s.total)));
  const uses = limits.perCustomer ? limits.perCustomer.count - state.runs : Infinity;
  if (flow.points == null) return room(state) <= 0 || uses <= 0 ? 0 : Number.isFinite(uses) ? uses : null;
  let runs = 0;
  for (let s = state; ;) {
    const { pointsEarned, capped } = decideFlowRun(flow, s, {}, now);
    if (pointsEarned <= 0) return runs;
    const same = capped || limits.perCustomer ? 1 : Math.max(1, Math.floor(room(s) / pointsEarned));
    runs += same;
    s = { ...s, runs: s.runs + same, total: s.total + same * pointsEarned, today: s.today + same * pointsEarned };
  }
}
