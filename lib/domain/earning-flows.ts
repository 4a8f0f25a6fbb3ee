import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { conflict, earningFlowNotFound, uniqueOr409, validationFailed } from "@/lib/errors";
import { checkRunParams, declareFlowParams, storedFlowParams, type FlowParamInput } from "./flow-params";
import { changeBalance, lockBalance } from "./ledger";
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

export async function createEarningFlow(db: Db, input: EarningFlowInput): Promise<{ earningFlowId: string }> {
  const fixed = input.points != null;
  const perUnit = input.pointsPerUnit != null;
  if (fixed === perUnit)
    throw validationFailed([{ path: "points", message: "give either points or pointsPerUnit with param" }]);
  if (perUnit && !input.param)
    throw validationFailed([{ path: "param", message: "pointsPerUnit needs the name of a numeric param" }]);
  const declared = declareFlowParams(input.params ?? [], perUnit ? input.param! : null);
  if (declared.problems.length) throw validationFailed(declared.problems);
  await requireProgram(db, input.programId);
  const flow = await uniqueOr409(
    () =>
      db.earningFlow.create({
        data: {
          ...input,
          param: perUnit ? input.param : null,
          params: declared.params as object[],
          once: input.once ?? false,
        },
        select: { id: true },
      }),
    () => conflict(`The program already has an earning flow with key "${input.key}".`),
  );
  return { earningFlowId: flow.id };
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
  await lockBalance(tx, input.programId, input.customerId);
  // The factor is the tier's after any period that has ended is closed.
  await recalculateIfDue(tx, input.programId, input.customerId, input.now);
  const [locked] = await tx.$queryRawUnsafe<{ balance: number; factor: number | null }[]>(
    `SELECT l.balance, t.factor FROM "LoyaltyData" l
       JOIN "CustomerTier" ct ON ct."programId" = l."programId" AND ct."customerId" = l."customerId"
       LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
     WHERE l."programId" = $1::uuid AND l."customerId" = $2::uuid`,
    input.programId,
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
