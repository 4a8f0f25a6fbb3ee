import "server-only";
import { randomUUID } from "node:crypto";
import type { Db, Tx } from "@/lib/db/types";
import { AppError, validationFailed } from "@/lib/errors";
import { lockBalance } from "../balance-lock";
import { assignCoupon } from "../coupons";
import { changeBalance } from "../ledger";
import { recalculateIfDue } from "../tiers-engine";
import { attrTypesOf, type AttrTypes } from "./conditions";
import type { CampaignDefinition, SkipReason } from "./definition";
import { evaluate, limitWindow, type CampaignVersionState, type Evaluation } from "./evaluate";
import { zonedTime } from "./schedule";
import { eventTypeAttributes } from "./store";
import { checkEventAttributes } from "./validate";

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
  /**
   * A dry run only (the dashboard's "try it"): this campaign's definition (a draft, or a change waiting for its
   * next version) is evaluated in place of its running version, or beside the others when it has none yet.
   */
  preview?: { campaignId: string; name: string; version: number; definition: CampaignDefinition; budgetUsed: number };
}

export interface EventEffect {
  campaignId: string;
  campaignVersion: number;
  type: "award_points" | "multiply_points" | "assign_coupon";
  points: number | null;
  couponCode: string | null;
  transactionId: string | null;
}

export interface CustomerEventOutcome {
  event: { id: string | null; type: string; occurredAt: string };
  effects: EventEffect[];
  balance: number;
  skipped: { campaignId: string; reason: SkipReason }[];
}

interface CustomerRow {
  balance: number;
  memberSince: Date;
  language: string | null;
  tier: string | null;
  factor: number | null;
  timeZone: string;
}

const loadCustomer = async (db: Db, programId: string, customerId: string) =>
  (
    await db.$queryRawUnsafe<CustomerRow[]>(
      `SELECT l.balance, l."memberSince", c.language, t.name AS tier, t.factor, p."timeZone"
       FROM "LoyaltyData" l
         JOIN "Customer" c ON c.id = l."customerId"
         JOIN "Program" p ON p.id = l."programId"
         LEFT JOIN "CustomerTier" ct ON ct."programId" = l."programId" AND ct."customerId" = l."customerId"
         LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
       WHERE l."programId" = $1::uuid AND l."customerId" = $2::uuid`,
      programId,
      customerId,
    )
  )[0];

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

/** The customer's uses of each limited campaign in the window `now` falls in. */
async function loadUses(db: Db, programId: string, customerId: string, windows: Map<string, string>) {
  const uses = new Map<string, number>();
  if (windows.size === 0) return uses;
  const ids = [...windows.keys()];
  const rows = await db.$queryRawUnsafe<{ campaignId: string; window: string; count: number }[]>(
    `SELECT "campaignId"::text AS "campaignId", "window", count FROM "CampaignUsage"
     WHERE "programId" = $1::uuid AND "customerId" = $2::uuid AND "campaignId" = ANY($3::uuid[])`,
    programId,
    customerId,
    ids,
  );
  for (const r of rows) if (windows.get(r.campaignId) === r.window) uses.set(r.campaignId, r.count);
  return uses;
}

const COUPON_SKIPS = new Set(["coupon_pool_empty", "coupon_pool_inactive", "coupon_pool_not_found"]);

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
  const preview = input.dryRun ? input.preview : undefined;
  if (preview && preview.definition.trigger.event === input.type) {
    const at = rows.findIndex((r) => r.campaignId === preview.campaignId);
    const row = { ...preview, attrTypes: attrTypesOf(preview.definition.conditions, declared) };
    if (at >= 0) rows[at] = row;
    else rows.push(row);
  }
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
  const names = new Map(rows.map((r) => [r.campaignId, r]));
  const effects: EventEffect[] = [];
  const skipped = [...evaluation.skipped];
  let balance = customer.balance;
  for (const applied of evaluation.applied) {
    const version = names.get(applied.campaignId)!;
    const limits = version.definition.limits;
    let transactionId: string | null = null;
    if (applied.points > 0) {
      const change = await changeBalance(tx, {
        programId,
        customerId,
        points: applied.points,
        type: "earn",
        source: "api",
        actor: input.actor,
        reason: `campaign: ${version.name}`,
        metadata: {
          campaignId: applied.campaignId,
          campaignVersion: applied.version,
          campaignName: version.name,
          eventId,
          eventType: input.type,
          window: applied.window,
          budgeted: limits.budgetPoints !== undefined,
        },
        idempotencyKey: input.idempotencyKey ?? null,
        orderId: input.orderId ?? null,
        now,
      });
      transactionId = change.entryId;
      balance = change.balance;
      if (limits.budgetPoints !== undefined) {
        const consumed = await tx.$executeRawUnsafe(
          `UPDATE "Campaign" SET "budgetUsed" = "budgetUsed" + $2 WHERE id = $1::uuid AND "budgetUsed" + $2 <= $3`,
          applied.campaignId,
          applied.points,
          limits.budgetPoints,
        );
        if (consumed !== 1) throw new Error(`campaign ${applied.campaignId}: budget exceeded under its row lock`);
      }
    }
    if (applied.window !== null && limits.perCustomer) {
      const counted = await tx.$queryRawUnsafe<{ count: number }[]>(
        `INSERT INTO "CampaignUsage" ("programId", "campaignId", "customerId", "window", count)
         VALUES ($1::uuid, $2::uuid, $3::uuid, $4, 1)
         ON CONFLICT ("campaignId", "customerId", "window")
           DO UPDATE SET count = "CampaignUsage".count + 1 WHERE "CampaignUsage".count < $5
         RETURNING count`,
        programId,
        applied.campaignId,
        customerId,
        applied.window,
        limits.perCustomer.count,
      );
      if (!counted.length)
        throw new Error(`campaign ${applied.campaignId}: customer limit exceeded under the row lock`);
    }
    for (const e of applied.effects) {
      if (e.type !== "assign_coupon") {
        effects.push({
          campaignId: applied.campaignId,
          campaignVersion: applied.version,
          type: e.type,
          points: e.points,
          couponCode: null,
          transactionId,
        });
        continue;
      }
      try {
        const coupon = await assignCoupon(tx, { programId, customerId, couponPoolId: e.couponPoolId });
        effects.push({
          campaignId: applied.campaignId,
          campaignVersion: applied.version,
          type: e.type,
          points: null,
          couponCode: coupon.code,
          transactionId: null,
        });
      } catch (err) {
        // A pool with no free code (or switched off since) gives nothing; the campaign's other effects stand.
        if (!(err instanceof AppError) || !COUPON_SKIPS.has(err.code)) throw err;
        skipped.push({ campaignId: applied.campaignId, reason: "coupon_pool_empty" });
      }
    }
  }
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
