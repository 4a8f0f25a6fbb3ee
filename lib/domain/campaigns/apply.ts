import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { AppError } from "@/lib/errors";
import { assignCoupon } from "../coupons";
import { changeBalance } from "../ledger";
import type { LedgerSource } from "../vocabulary";
import { segmentsOfCustomer } from "../segments/store";
import type { AttrTypes } from "./conditions";
import { SEGMENT_ATTR, type CampaignDefinition, type SkipReason } from "./definition";
import type { AppliedCampaign, AppliedEffect, CustomerState, Evaluation } from "./evaluate";

/**
 * How a lifecycle firing's evaluation (evaluate.ts) takes effect (lifecycle.ts), in the caller's transaction, which
 * holds the customer's balance row lock and the row locks of the budgeted campaigns it evaluated. An event applies
 * the same evaluation through its one statement instead (event-write.ts `perEventShape`); folding this into that
 * statement is open work (issue 23's note):
 * - points through the one balance change (ledger.ts `changeBalance`): one `earn` entry per campaign whose metadata
 *   names the campaign, its version, the per-customer window, and what triggered it (`provenance`: the event's id
 *   and type, or the lifecycle trigger and occurrence); coupons through the one assignment (coupons.ts);
 * - the budget consumed (`budgetUsed`) and the per-customer use counted (`CampaignUsage`, a conditional upsert),
 *   each refusing to go past its limit (a bug, not a client error, if it ever did under these locks).
 * Also the state the evaluator reads: the customer (loadCustomer) and its uses of limited campaigns (loadUses).
 */

export interface EventEffect {
  campaignId: string;
  campaignVersion: number;
  type: "award_points" | "multiply_points" | "assign_coupon";
  points: number | null;
  couponCode: string | null;
  transactionId: string | null;
}

export interface CustomerRow {
  balance: number;
  memberSince: Date;
  language: string | null;
  customAttributes: Record<string, unknown>;
  tier: string | null;
  factor: number | null;
  timeZone: string;
}

/** The customer's state the evaluator reads, for `loadCustomer` (one customer) and `loadCustomers` (several). */
const CUSTOMER_SQL = (which: string) =>
  `SELECT l."customerId"::text AS "customerId", l.balance, l."memberSince", c.language, c."customAttributes",
          t.name AS tier, t.factor, p."timeZone"
   FROM "LoyaltyData" l
     JOIN "Customer" c ON c.id = l."customerId"
     JOIN "Program" p ON p.id = l."programId"
     LEFT JOIN "CustomerTier" ct ON ct."programId" = l."programId" AND ct."customerId" = l."customerId"
     LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
   WHERE l."programId" = $1::uuid AND ${which}`;
const ONE_CUSTOMER = CUSTOMER_SQL(`l."customerId" = $2::uuid`);
const SOME_CUSTOMERS = CUSTOMER_SQL(`l."customerId" = ANY($2::uuid[])`);

export const loadCustomer = async (db: Db, programId: string, customerId: string) =>
  (await db.$queryRawUnsafe<CustomerRow[]>(ONE_CUSTOMER, programId, customerId))[0];

/** `loadCustomer` of several customers in one read, by customer id. */
export async function loadCustomers(db: Db, programId: string, customerIds: readonly string[]) {
  const rows = await db.$queryRawUnsafe<(CustomerRow & { customerId: string })[]>(
    SOME_CUSTOMERS,
    programId,
    customerIds,
  );
  return new Map(rows.map((r) => [r.customerId, r]));
}

/**
 * The customer as the evaluator reads it (evaluate.ts `CustomerState`), from `loadCustomer`'s row; the segments the
 * customer is in are computed only when one of the evaluated versions names `customer.segment`.
 */
export async function evaluatorCustomer(
  db: Db,
  programId: string,
  customerId: string,
  customer: CustomerRow,
  versions: readonly { attrTypes?: AttrTypes }[],
  now: Date,
): Promise<CustomerState> {
  return {
    tier: customer.tier,
    tierFactor: customer.factor,
    balance: customer.balance,
    memberSince: new Date(customer.memberSince),
    language: customer.language,
    custom: customer.customAttributes,
    segments: versions.some((v) => SEGMENT_ATTR in (v.attrTypes ?? {}))
      ? (await segmentsOfCustomer(db, programId, customerId, now)).flatMap((s) => [s.id, s.name])
      : undefined,
  };
}

/** The customer's uses of each limited campaign in the window `now` falls in. */
export async function loadUses(db: Db, programId: string, customerId: string, windows: Map<string, string>) {
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

/** The coupon refusals that make an assign_coupon effect give nothing while the campaign's other effects stand. */
export const COUPON_SKIPS = new Set(["coupon_pool_empty", "coupon_pool_inactive", "coupon_pool_not_found"]);

export interface ApplyInput {
  programId: string;
  customerId: string;
  evaluation: Evaluation;
  /** The evaluated versions: their name and definition, by campaign id. */
  versions: readonly { campaignId: string; name: string; definition: CampaignDefinition }[];
  /** The customer's balance before (answered back when nothing changes it). */
  balance: number;
  /** The entries' door: `api` for an event, `system` for a lifecycle firing. */
  source: LedgerSource;
  actor: string;
  /** What triggered it, in each entry's metadata: `{ eventId, eventType }` or `{ lifecycle, occurrence, … }`. */
  provenance: Record<string, unknown>;
  idempotencyKey: string | null;
  orderId: string | null;
  now: Date;
}

/** The reason and metadata of a campaign's earn entry (`provenance`: what triggered it, see `ApplyInput`). */
export const campaignEarn = (
  version: { name: string; definition: CampaignDefinition },
  applied: AppliedCampaign,
  provenance: Record<string, unknown>,
) => ({
  reason: `campaign: ${version.name}`,
  metadata: {
    campaignId: applied.campaignId,
    campaignVersion: applied.version,
    campaignName: version.name,
    ...provenance,
    window: applied.window,
    budgeted: version.definition.limits.budgetPoints !== undefined,
  },
});

/** A points effect of an applied campaign as answered (`transactionId`: the campaign's earn entry, if any). */
export const pointEffect = (
  applied: AppliedCampaign,
  e: Extract<AppliedEffect, { type: "award_points" | "multiply_points" }>,
  transactionId: string | null,
): EventEffect => ({
  campaignId: applied.campaignId,
  campaignVersion: applied.version,
  type: e.type,
  points: e.points,
  couponCode: null,
  transactionId,
});

export async function applyEvaluation(
  tx: Tx,
  input: ApplyInput,
): Promise<{ effects: EventEffect[]; skipped: { campaignId: string; reason: SkipReason }[]; balance: number }> {
  const { programId, customerId, evaluation, now } = input;
  const names = new Map(input.versions.map((r) => [r.campaignId, r]));
  const effects: EventEffect[] = [];
  const skipped = [...evaluation.skipped];
  let balance = input.balance;
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
        source: input.source,
        actor: input.actor,
        ...campaignEarn(version, applied, input.provenance),
        idempotencyKey: input.idempotencyKey,
        orderId: input.orderId,
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
        effects.push(pointEffect(applied, e, transactionId));
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
  return { effects, skipped, balance };
}
