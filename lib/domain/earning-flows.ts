import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { requireRow } from "@/lib/db/require-row";
import { conflict, earningFlowNotFound, notFound, uniqueOr409, validationFailed } from "@/lib/errors";
import { checkRunParams, declareFlowParams, storedFlowParams, type FlowParamInput } from "./flow-params";
import { changeBalance } from "./ledger";
import { requireProgram } from "./programs";
import { recalculateIfDue } from "./tiers-engine";
import type { CapReason } from "./vocabulary";

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
    () => conflict(`The program already has an earning flow with key "${input.key}".`),
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

export interface EarningOutcome {
  pointsEarned: number;
  balance: number;
  /** The ledger entry JSON text, or null when nothing was earned. */
  transactionJson: string | null;
  capped: CapReason | null;
}

/**
 * Runs a flow for a customer: base points (fixed, or per unit of a numeric param) × the current tier's
 * factor, rounded down, then limited by the flow's caps. A capped run earns 0 and says which cap.
 * `params` must match the flow's declaration (flow-params.ts); only declared values reach the ledger.
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
    now?: Date;
  },
): Promise<EarningOutcome> {
  const flow = await tx.earningFlow.findUnique({
    where: { programId_key: { programId: input.programId, key: input.flowKey } },
  });
  if (!flow || !flow.active) throw earningFlowNotFound(input.flowKey);

  const run = checkRunParams(storedFlowParams(flow.params), input.params);
  if (run.problems.length) throw validationFailed(run.problems);
  // The per-unit param is declared required, so a checked run has it.
  const base = flow.points != null ? flow.points : run.values[flow.param!]! * flow.pointsPerUnit!;

  // The balance row lock serialises this customer's runs, so the caps below see every earlier run.
  await tx.$queryRawUnsafe(`SELECT 1 FROM "LoyaltyData" WHERE "customerId" = $1::uuid FOR UPDATE`, input.customerId);
  // The factor is the tier's after any period that has ended is closed.
  await recalculateIfDue(tx, input.programId, input.customerId, input.now);
  const [locked] = await tx.$queryRawUnsafe<{ balance: number; factor: number | null }[]>(
    `SELECT l.balance, t.factor FROM "LoyaltyData" l
       JOIN "CustomerTier" ct ON ct."customerId" = l."customerId" LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
     WHERE l."customerId" = $1::uuid`,
    input.customerId,
  );
  if (!locked) throw new Error("customer without loyalty data");
  let points = Math.floor(base * (locked.factor ?? 1) + 1e-9);
  let capped: CapReason | null = null;

  if (flow.once || flow.capTotal != null || flow.capPerDay != null) {
    const [used] = await tx.$queryRawUnsafe<{ runs: number; total: number; today: number }[]>(
      `SELECT count(*)::int AS runs, coalesce(sum(points), 0)::int AS total,
              coalesce(sum(points) FILTER (WHERE "createdAt" >= date_trunc('day', $3::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)::int AS today
       FROM "LedgerEntry" WHERE "customerId" = $1::uuid AND "earningFlowId" = $2::uuid`,
      input.customerId,
      flow.id,
      (input.now ?? new Date()).toISOString(),
    );
    const limits: [CapReason, number][] = [];
    if (flow.once) limits.push(["once", (used?.runs ?? 0) > 0 ? 0 : points]);
    if (flow.capTotal != null) limits.push(["cap_total", flow.capTotal - (used?.total ?? 0)]);
    if (flow.capPerDay != null) limits.push(["cap_per_day", flow.capPerDay - (used?.today ?? 0)]);
    for (const [reason, room] of limits) {
      if (room < points) {
        points = Math.max(0, room);
        capped = reason;
      }
    }
  }

  if (points <= 0) return { pointsEarned: 0, balance: locked.balance, transactionJson: null, capped: capped ?? null };
  const result = await changeBalance(tx, {
    programId: input.programId,
    customerId: input.customerId,
    points,
    type: "earn",
    source: "earning_flow",
    actor: input.actor,
    reason: flow.name ?? flow.key,
    metadata: { flowKey: flow.key, params: run.values },
    idempotencyKey: input.idempotencyKey,
    earningFlowId: flow.id,
    now: input.now,
  });
  return { pointsEarned: points, balance: result.balance, transactionJson: result.entryJson, capped };
}
