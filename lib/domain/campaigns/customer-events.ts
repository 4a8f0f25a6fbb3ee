import "server-only";
import { randomUUID } from "node:crypto";
import type { Db, Tx } from "@/lib/db/types";
import { validationFailed } from "@/lib/errors";
import { lockBalance } from "../balance-lock";
import { recalculateIfDue } from "../tiers-engine";
import { applyEvaluation, loadCustomer, loadUses, type EventEffect } from "./apply";
import type { AttrTypes } from "./conditions";
import type { CampaignDefinition, SkipReason } from "./definition";
import { evaluate, limitWindow, type CampaignVersionState, type Evaluation } from "./evaluate";
import { zonedTime } from "./schedule";
import { eventTypeAttributes } from "./store";
import { checkEventAttributes } from "./validate";

export type { EventEffect } from "./apply";

/**
 * A customer event in, the campaigns' effects out (API.md "Campaigns and events"): the event is checked against its
 * declared type, the active campaign versions it triggers are evaluated by the one evaluator (evaluate.ts), and
 * their effects are applied in the caller's transaction:
 * - under the customer's balance row lock (the first lock, as for every balance change), so the customer's state,
 *   its per-customer limit counters and its tier factor are exact;
 * - after locking, in id order, the triggered campaigns that have a budget (`FOR UPDATE` on their row), so the
 *   budget the evaluator sees is exact until commit: concurrent events never give more than the budget;
 * - points through the one balance change (ledger.ts `changeBalance`): one `earn` entry per campaign whose metadata
 *   names the campaign, its version and the event (`campaignId`, `campaignVersion`, `campaignName`, `eventId`,
 *   `eventType`, `window`); coupons through the one assignment (coupons.ts `assignCoupon`);
 * - the budget consumed (`budgetUsed`) and the per-customer use counted (`CampaignUsage`, a conditional upsert),
 *   each refusing to go past its limit (a bug, not a client error, if it ever did under these locks);
 * - the event kept in the event log (`CustomerEvent`) with what the campaigns did.
 * A dry run evaluates the same way and writes nothing: no lock, no entry, no counter, no event row, no webhook.
 */

export interface CustomerEventInput {
  programId: string;
  customerId: string;
  type: string;
  /** Default: the program clock's now. */
  occurredAt?: Date | null;
  orderId?: string | null;
  attributes: Record<string, unknown>;
  actor: string;
  idempotencyKey?: string | null;
  dryRun: boolean;
  now: Date;
}

export interface CustomerEventOutcome {
  event: { id: string | null; type: string; occurredAt: string };
  effects: EventEffect[];
  balance: number;
  skipped: { campaignId: string; reason: SkipReason }[];
}

interface VersionRow {
  campaignId: string;
  name: string;
  version: number;
  definition: CampaignDefinition;
  attrTypes: AttrTypes;
  budgetUsed: number;
}

/** The running version of every active campaign of the program triggered by `type`, by campaign id. */
const loadVersions = (db: Db, programId: string, type: string) =>
  db.$queryRawUnsafe<VersionRow[]>(
    `SELECT c.id::text AS "campaignId", v.name, v.version, v.definition, v."attrTypes", c."budgetUsed"
     FROM "Campaign" c JOIN "CampaignVersion" v ON v."campaignId" = c.id AND v.version = c.version
     WHERE c."programId" = $1::uuid AND c.status = 'active' AND v.definition->'trigger'->>'event' = $2
     ORDER BY c.id`,
    programId,
    type,
  );

export async function recordCustomerEvent(tx: Tx, input: CustomerEventInput): Promise<CustomerEventOutcome> {
  const { programId, customerId, now } = input;
  const declared = await eventTypeAttributes(tx, programId, input.type);
  if (!declared) throw validationFailed([{ path: "type", message: "is not a declared event type" }]);
  const problems = checkEventAttributes(declared, input.attributes);
  if (problems.length) throw validationFailed(problems);
  const occurredAt = input.occurredAt ?? now;

  if (!input.dryRun) {
    await lockBalance(tx, programId, customerId);
    // The tier factor is the tier's after any period that has ended is closed (as for every earn).
    await recalculateIfDue(tx, programId, customerId, now);
  }
  const customer = await loadCustomer(tx, programId, customerId);
  if (!customer) throw new Error("customer without loyalty data");
  const rows = await loadVersions(tx, programId, input.type);
  const budgeted = rows.filter((r) => r.definition.limits.budgetPoints !== undefined).map((r) => r.campaignId);
  if (!input.dryRun && budgeted.length) {
    const locked = await tx.$queryRawUnsafe<{ id: string; budgetUsed: number }[]>(
      `SELECT id::text AS id, "budgetUsed" FROM "Campaign" WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
      budgeted,
    );
    const used = new Map(locked.map((l) => [l.id, l.budgetUsed]));
    for (const r of rows) r.budgetUsed = used.get(r.campaignId) ?? r.budgetUsed;
  }
  const nowLocal = zonedTime(now, customer.timeZone);
  const windows = new Map<string, string>();
  for (const r of rows) {
    const w = limitWindow(r.definition, nowLocal);
    if (w !== null) windows.set(r.campaignId, w);
  }
  const uses = await loadUses(tx, programId, customerId, windows);
  const campaigns: CampaignVersionState[] = rows.map((r) => ({
    campaignId: r.campaignId,
    version: r.version,
    definition: r.definition,
    attrTypes: r.attrTypes,
    budgetUsed: r.budgetUsed,
    customerUses: uses.get(r.campaignId) ?? 0,
  }));
  const evaluation: Evaluation = evaluate({
    event: { type: input.type, occurredAt, attributes: input.attributes },
    customer: {
      tier: customer.tier,
      tierFactor: customer.factor,
      balance: customer.balance,
      memberSince: new Date(customer.memberSince),
      language: customer.language,
    },
    campaigns,
    now,
    timeZone: customer.timeZone,
  });

  const eventView = { type: input.type, occurredAt: occurredAt.toISOString() };
  if (input.dryRun)
    return {
      event: { id: null, ...eventView },
      effects: evaluation.applied.flatMap((a) =>
        a.effects.map((e) => ({
          campaignId: a.campaignId,
          campaignVersion: a.version,
          type: e.type,
          points: "points" in e ? e.points : null,
          couponCode: null,
          transactionId: null,
        })),
      ),
      balance: customer.balance,
      skipped: evaluation.skipped,
    };

  const eventId = randomUUID();
  const { effects, skipped, balance } = await applyEvaluation(tx, {
    programId,
    customerId,
    evaluation,
    versions: rows,
    balance: customer.balance,
    source: "api",
    actor: input.actor,
    provenance: { eventId, eventType: input.type },
    idempotencyKey: input.idempotencyKey ?? null,
    orderId: input.orderId ?? null,
    now,
  });
  const outcome = { effects, skipped };
  await tx.customerEvent.create({
    data: {
      id: eventId,
      programId,
      customerId,
      type: input.type,
      occurredAt,
      orderId: input.orderId ?? null,
      attributes: input.attributes as object,
      outcome: outcome as object,
      idempotencyKey: input.idempotencyKey ?? null,
      createdAt: now,
    },
  });
  return { event: { id: eventId, ...eventView }, effects, balance, skipped };
}
