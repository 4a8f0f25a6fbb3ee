import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { requireRow } from "@/lib/db/require-row";
import { conflict, earningFlowNotFound, notFound, uniqueOr409, validationFailed } from "@/lib/errors";
import { checkRunParams, declareFlowParams, storedFlowParams, type FlowParamInput } from "./flow-params";
import { changeBalance, changeCtes, changeRefusal } from "./ledger";
import { closeReferral } from "./referrals";
import { lockedStatement, runLockedWrite } from "./locked-write";
import { lockBalance } from "./balance-lock";
import { params, sql } from "@/lib/db/sql";
import { KEYED_PARAM_COUNT, type StatementWrite } from "@/lib/db/keyed-statement";
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
}

/** How a flow earns and what a run may send, checked as a whole: fixed points xor points per unit of a declared param. */
function flowDefinition(input: Omit<EarningFlowInput, "programId" | "key">) {
  const fixed = input.points != null;
  const perUnit = input.pointsPerUnit != null;
  if (fixed === perUnit)
    throw validationFailed([{ path: "points", message: "give either points or pointsPerUnit with param" }]);
  if (perUnit && !input.param)
    throw validationFailed([{ path: "param", message: "pointsPerUnit needs the name of a numeric param" }]);
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

/** The active flow of the program with this key (404 otherwise), the run's checked params and its base points. */
async function loadRun(db: Db, input: { programId: string; flowKey: string; params: Record<string, unknown> }) {
  const flow = await db.earningFlow.findUnique({
    where: { programId_key: { programId: input.programId, key: input.flowKey } },
  });
  if (!flow || !flow.active) throw earningFlowNotFound(input.flowKey);
  const run = checkRunParams(storedFlowParams(flow.params), input.params);
  if (run.problems.length) throw validationFailed(run.problems);
  // The per-unit param is declared required, so a checked run has it.
  const base = flow.points != null ? flow.points : run.values[flow.param!]! * flow.pointsPerUnit!;
  return { flow, run, base };
}

export interface EarningOutcome {
  pointsEarned: number;
  balance: number;
  /** The ledger entry JSON text, or null when nothing was earned. */
  transactionJson: string | null;
  capped: CapReason | null;
}

/**
 * Runs a flow for a customer in the caller's transaction (the dashboard, the JeriCommerce alias, and the requests the
 * one-statement path hands over): base points (fixed, or per unit of a numeric param) × the current tier's factor,
 * rounded down, then limited by the flow's caps; a capped run earns 0 and says which cap. `params` must match the
 * flow's declaration (flow-params.ts); only declared values reach the ledger. The decision is the one statement of
 * both paths (`RUN_WRITE`), run after the balance row lock (so the caps see every earlier run) and after what is
 * due is settled: an ended tier period is closed first (the factor is the tier's after it), and when the statement
 * finds that the run completes an open referral (`referral_due`), the referral is closed and the statement runs
 * again, then both sides are rewarded after the earn (referrals.ts `closeReferral`, as `changeBalance` does).
 */
export async function executeEarningFlow(
  tx: Tx,
  input: {
    programId: string;
    customerId: string;
    flowKey: string;
    params: Record<string, unknown>;
    actor: string;
    idempotencyKey?: string | null;
    orderId?: string | null;
    now?: Date;
  },
): Promise<EarningOutcome> {
  const now = input.now ?? programNow(input.programId);
  const values = await earningFlowRunValues(tx, { ...input, now });
  await lockBalance(tx, input.programId, input.customerId);
  await recalculateIfDue(tx, input.programId, input.customerId, now);
  let done = await runLockedWrite(tx, LOCKED_RUN_SQL, values);
  let referral = null;
  if ("refusal" in done && done.refusal === "referral_due") {
    const { programId, customerId } = input;
    referral = await closeReferral(tx, { programId, customerId, source: "earning_flow", now, points: null });
    done = await runLockedWrite(tx, LOCKED_RUN_SQL, values);
  }
  if ("refusal" in done) {
    if (done.refusal === "missing") throw new Error("customer without loyalty data");
    throw changeRefusal(done.refusal) ?? new Error(`earning-flow run refused under the row lock: ${done.refusal}`);
  }
  if (referral) await referral.reward((award) => changeBalance(tx, award));
  const r = done.row;
  return {
    pointsEarned: Number(r.points_earned),
    balance: Number(r.balance),
    transactionJson: r.entry == null ? null : String(r.entry),
    capped: (r.capped ?? null) as CapReason | null,
  };
}

const RUN = params(
  [
    "programId",
    "customerId",
    "flowId",
    "base",
    "once",
    "capTotal",
    "capPerDay",
    "reason",
    "actor",
    "idempotencyKey",
    "metadata",
    "now",
    "orderId",
  ] as const,
  KEYED_PARAM_COUNT + 1,
);
const r = RUN.sql;

/**
 * A run as one keyed statement: the factor of the customer's tier, the caps from the flow's earlier entries, then
 * the balance change of ledger.ts (`changeCtes`) with the points left; a capped run changes nothing and answers
 * `pointsEarned: 0`. Read from one snapshot, like the change itself: the change's xmin guard makes a run that a
 * concurrent change overtook report `race`. A tier period that has ended must be closed before the factor is read:
 * `tier_due`, for the locked path (once per period per customer); so must an open referral the run completes
 * (`referral_due`, from `changeCtes`). `result` is what `executeEarningFlow` returns: the
 * points earned, the balance, the entry (JSON text; NULL when the run earned nothing) and the cap that applied.
 */
export const RUN_WRITE: StatementWrite = {
  ctes: sql`run_clock AS (
  SELECT ${r.now}::timestamptz AS at
), state AS (
  SELECT l.balance, t.factor, ct."recalculationDate" <= (SELECT at FROM run_clock) AS tier_due
  FROM "LoyaltyData" l JOIN "CustomerTier" ct ON ct."programId" = l."programId" AND ct."customerId" = l."customerId"
    LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
  WHERE l."programId" = ${r.programId}::uuid AND l."customerId" = ${r.customerId}::uuid AND EXISTS (SELECT 1 FROM go)
), used AS (
  SELECT count(*)::int AS runs, coalesce(sum(points), 0)::int AS total,
         coalesce(sum(points) FILTER (WHERE "createdAt" >= date_trunc('day', (SELECT at FROM run_clock) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)::int AS today
  FROM "LedgerEntry"
  WHERE "programId" = ${r.programId}::uuid AND "customerId" = ${r.customerId}::uuid AND "earningFlowId" = ${r.flowId}::uuid
    AND (${r.once}::boolean OR ${r.capTotal}::int IS NOT NULL OR ${r.capPerDay}::int IS NOT NULL)
), p0 AS (
  SELECT floor(${r.base}::float8 * coalesce(state.factor, 1) + 1e-9)::int AS points, NULL::text AS capped FROM state
), p1 AS (
  SELECT CASE WHEN c.cut THEN 0 ELSE p0.points END AS points, CASE WHEN c.cut THEN 'once' ELSE p0.capped END AS capped
  FROM p0, used, LATERAL (SELECT ${r.once}::boolean AND used.runs > 0 AND 0 < p0.points AS cut) c
), p2 AS (
  SELECT CASE WHEN c.cut THEN greatest(0, c.room) ELSE p1.points END AS points,
         CASE WHEN c.cut THEN 'cap_total' ELSE p1.capped END AS capped
  FROM p1, used, LATERAL (SELECT ${r.capTotal}::int - used.total AS room) x,
       LATERAL (SELECT x.room AS room, coalesce(x.room < p1.points, false) AS cut) c
), earned AS (
  SELECT CASE WHEN c.cut THEN greatest(0, c.room) ELSE p2.points END AS points,
         CASE WHEN c.cut THEN 'cap_per_day' ELSE p2.capped END AS capped
  FROM p2, used, LATERAL (SELECT ${r.capPerDay}::int - used.today AS room) x,
       LATERAL (SELECT x.room AS room, coalesce(x.room < p2.points, false) AS cut) c
), ${changeCtes({
    programId: sql`${r.programId}::uuid`,
    customerId: sql`${r.customerId}::uuid`,
    // NULL (no change at all) for a run that earns nothing or must first close a tier period.
    points: sql`(SELECT nullif(earned.points, 0) FROM earned, state WHERE NOT coalesce(state.tier_due, false))`,
    type: sql`'earn'`,
    reason: sql`${r.reason}::text`,
    source: sql`'earning_flow'`,
    actor: sql`${r.actor}::text`,
    idempotencyKey: sql`${r.idempotencyKey}::text`,
    metadata: sql`${r.metadata}::jsonb`,
    earningFlowId: sql`${r.flowId}::uuid`,
    orderId: sql`${r.orderId}::text`,
    now: sql`${r.now}::timestamptz`,
    tier: sql`true`,
    shape: { sign: "add", tier: true },
  })}, result AS (
  SELECT ${r.customerId}::uuid AS "customerId", earned.points AS points_earned, change.balance, change.entry, earned.capped
  FROM change, earned
  UNION ALL
  SELECT ${r.customerId}::uuid, 0, state.balance, NULL::text, earned.capped
  FROM state, earned WHERE earned.points <= 0 AND NOT coalesce(state.tier_due, false)
), refusal AS (
  SELECT CASE WHEN state.tier_due THEN 'tier_due' ELSE (SELECT why FROM change_refusal) END AS why FROM state
), invariant AS (SELECT ok FROM change_ok)`,
};

const LOCKED_RUN_SQL = lockedStatement(RUN_WRITE, ["points_earned", "balance", "entry", "capped"]);

/**
 * The values of RUN_WRITE's parameters (after the keyed statement's five): the flow is read and the params checked
 * first (one read); the time is the program's clock's.
 */
export async function earningFlowRunValues(
  db: Db,
  input: {
    programId: string;
    customerId: string;
    flowKey: string;
    params: Record<string, unknown>;
    actor: string;
    idempotencyKey?: string | null;
    orderId?: string | null;
    now?: Date;
  },
) {
  const { flow, run, base } = await loadRun(db, input);
  return RUN.values({
    programId: input.programId,
    customerId: input.customerId,
    flowId: flow.id,
    base,
    once: flow.once,
    capTotal: flow.capTotal,
    capPerDay: flow.capPerDay,
    reason: flow.name ?? flow.key,
    actor: input.actor,
    idempotencyKey: input.idempotencyKey ?? null,
    metadata: JSON.stringify({ flowKey: flow.key, params: run.values }),
    now: (input.now ?? programNow(input.programId)).toISOString(),
    orderId: input.orderId ?? null,
  });
}

export interface FlowAllowance {
  /** Runs that would still earn points for the customer now; null when unlimited or unknowable (per-unit points). */
  remainingExecutions: number | null;
  recurrence: FlowRecurrence;
}

/**
 * What is left of a flow for a customer (the JeriCommerce execute alias's answer, API.md §3): `once` allows one run
 * that earns; the caps allow runs until their points are used, each run earning the flow's fixed points × the
 * current tier's factor (the last one what is left). Read in the caller's transaction, after the run.
 */
export async function flowAllowance(
  db: Db,
  input: { programId: string; customerId: string; flowKey: string; now?: Date },
): Promise<FlowAllowance> {
  const flow = await db.earningFlow.findUnique({
    where: { programId_key: { programId: input.programId, key: input.flowKey } },
  });
  if (!flow) throw earningFlowNotFound(input.flowKey);
  const recurrence: FlowRecurrence = flow.once ? "once" : flow.capPerDay != null ? "daily" : "unlimited";
  if (!flow.once && flow.capTotal == null && flow.capPerDay == null) return { remainingExecutions: null, recurrence };
  const [used] = await db.$queryRawUnsafe<{ runs: number; total: number; today: number; factor: number | null }[]>(
    `SELECT count(e.id)::int AS runs, coalesce(sum(e.points), 0)::int AS total,
            coalesce(sum(e.points) FILTER (WHERE e."createdAt" >= date_trunc('day', $4::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)::int AS today,
            (SELECT t.factor FROM "CustomerTier" ct JOIN "Tier" t ON t.id = ct."currentTierId"
              WHERE ct."programId" = $1::uuid AND ct."customerId" = $2::uuid) AS factor
     FROM "LedgerEntry" e WHERE e."programId" = $1::uuid AND e."customerId" = $2::uuid AND e."earningFlowId" = $3::uuid`,
    input.programId,
    input.customerId,
    flow.id,
    (input.now ?? programNow(input.programId)).toISOString(),
  );
  const rooms = [
    ...(flow.capTotal != null ? [flow.capTotal - (used?.total ?? 0)] : []),
    ...(flow.capPerDay != null ? [flow.capPerDay - (used?.today ?? 0)] : []),
  ];
  const room = rooms.length ? Math.min(...rooms) : null;
  const perRun = flow.points != null ? Math.floor(flow.points * (used?.factor ?? 1) + 1e-9) : null;
  let runs: number | null = null;
  if (room !== null) runs = room <= 0 ? 0 : perRun !== null && perRun > 0 ? Math.ceil(room / perRun) : null;
  if (flow.once) runs = (used?.runs ?? 0) > 0 ? 0 : Math.min(1, runs ?? 1);
  return { remainingExecutions: runs, recurrence };
}
