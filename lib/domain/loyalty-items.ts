import "server-only";
import type { Tx } from "@/lib/db/types";
import { conflict, customersNotFound, uniqueOr409, unknownTier, type FieldProblem } from "@/lib/errors";
import { emitEvents } from "./events";
import { changeBalance, expireDueLots } from "./ledger";
import { programNow } from "./clock";
import { migratedTier } from "./tier-rules";
import { loadTiers, type RankedTier } from "./tier-ranking";
import type { EventType, TierStatus } from "./vocabulary";

/**
 * The one place for `loyalty` batch items (API.md §3, the JeriCommerce migration): an existing customer's balance,
 * member-since date and tier, set as the former system knew them. The balance is set through ONE `adjust` ledger entry
 * of the difference (reason OPENING_BALANCE_REASON) on the locked path of ledger.ts, so balance = sum of entries =
 * sum of lots ≥ 0 still holds; an item that repeats the current state writes nothing. Points due to expire are expired
 * first, so the balance set is the balance the customer then has. The tier an item names (tierStatus is optional, as
 * in JeriCommerce: without it the customer's tier stays as it is) is held as a carried tier (API.md §4:
 * tierStatus `carried`, or `base` for the lowest tier) until the period ends, when the points earned here decide
 * (tier-rules.ts `migratedTier`).
 */

export const OPENING_BALANCE_REASON = "opening balance (migration)";

/** A `loyalty` item's payload, validated (lib/api/schemas/integrations.ts). */
export interface LoyaltyFields {
  /** The customer's id in the former system. */
  loyaltyCustomerId?: string;
  balance: number;
  /** ISO 8601: a date-time with its offset, or a date. */
  memberSince: string;
  /** A tier's NAME; left out, the customer's tier stays as it is. */
  tierStatus?: string;
}

export interface LoyaltyBatchItem {
  email: string;
  feature: "loyalty";
  payload: LoyaltyFields;
}

/** Who applies the items: recorded on the ledger entries. */
export interface LoyaltyWriter {
  actor: string;
  idempotencyKey?: string | null;
  now?: Date;
}

/** A tier by name: exactly, else the one tier whose name matches ignoring case. */
function tierNamed(tiers: RankedTier[], name: string): RankedTier | null {
  const exact = tiers.find((t) => t.name === name);
  if (exact) return exact;
  const folded = tiers.filter((t) => t.name.toLowerCase() === name.toLowerCase());
  return folded.length === 1 ? folded[0]! : null;
}

interface Target {
  customerId: string;
  email: string;
  index: number;
  balance: number;
  memberSince: Date;
  loyaltyCustomerId?: string;
  /** The tier the item sets, or null when no item for this customer names one (the tier stays as it is). */
  tier: { tierId: string; carryTierId: string | null; tierStatus: TierStatus } | null;
}

/** The items' targets by customer (later items for the same e-mail win), or the problems that refuse the batch. */
async function resolveTargets(
  tx: Tx,
  programId: string,
  items: { item: LoyaltyBatchItem; index: number }[],
): Promise<Target[]> {
  const tiers = await loadTiers(tx, programId);
  const names = tiers.map((t) => t.name).join(", ");
  const tierProblems: FieldProblem[] = [];
  for (const { item, index } of items) {
    if (item.payload.tierStatus !== undefined && !tierNamed(tiers, item.payload.tierStatus))
      tierProblems.push({
        path: `[${index}].payload.tierStatus`,
        message: tiers.length
          ? `is not a tier of this program (its tiers: ${names})`
          : "names a tier, and the program has none",
      });
  }
  if (tierProblems.length) throw unknownTier(tierProblems);

  const emails = [...new Set(items.map(({ item }) => item.email))];
  const found = await tx.customer.findMany({
    where: { programId, email: { in: emails }, deletedAt: null },
    select: { id: true, email: true },
  });
  const idOf = new Map(found.map((c) => [c.email!, c.id]));
  const missing = items
    .filter(({ item }) => !idOf.has(item.email))
    .map(({ index }) => ({
      path: `[${index}].email`,
      message: "names no customer of this program: send a user item first",
    }));
  if (missing.length) throw customersNotFound(missing);

  const byCustomer = new Map<string, Target>();
  for (const { item, index } of items) {
    const customerId = idOf.get(item.email)!;
    const named = item.payload.tierStatus === undefined ? null : tierNamed(tiers, item.payload.tierStatus)!;
    const held = named && migratedTier(tiers, named.id);
    byCustomer.set(customerId, {
      customerId,
      email: item.email,
      index,
      balance: item.payload.balance,
      memberSince: new Date(item.payload.memberSince),
      loyaltyCustomerId: item.payload.loyaltyCustomerId ?? byCustomer.get(customerId)?.loyaltyCustomerId,
      tier: held
        ? { tierId: held.currentTierId, carryTierId: held.carryTierId, tierStatus: held.tierStatus }
        : (byCustomer.get(customerId)?.tier ?? null),
    });
  }
  const targets = [...byCustomer.values()].sort((a, b) => (a.customerId < b.customerId ? -1 : 1));
  await checkLoyaltyCustomerIds(tx, targets);
  return targets;
}

/** loyaltyCustomerId is unique (schema.prisma): clashes named by item before writing; the index stays the final guard. */
async function checkLoyaltyCustomerIds(tx: Tx, targets: Target[]) {
  const claims = new Map<string, Target>();
  const problems: FieldProblem[] = [];
  for (const t of targets) {
    if (t.loyaltyCustomerId === undefined) continue;
    const earlier = claims.get(t.loyaltyCustomerId);
    if (earlier)
      problems.push({
        path: `[${t.index}].payload.loyaltyCustomerId`,
        message: `also given in item [${earlier.index}]`,
      });
    else claims.set(t.loyaltyCustomerId, t);
  }
  if (claims.size > 0) {
    const taken = await tx.loyaltyData.findMany({
      where: { loyaltyCustomerId: { in: [...claims.keys()] } },
      select: { loyaltyCustomerId: true, customerId: true },
    });
    for (const row of taken) {
      const claim = claims.get(row.loyaltyCustomerId)!;
      if (row.customerId !== claim.customerId)
        problems.push({
          path: `[${claim.index}].payload.loyaltyCustomerId`,
          message: "already belongs to another customer",
        });
    }
  }
  if (problems.length) throw conflict("loyaltyCustomerId must be unique.", problems);
}

interface Current {
  customerId: string;
  balance: number;
  memberSince: Date;
  loyaltyCustomerId: string;
  tierStatus: string;
  currentTierId: string | null;
  carryTierId: string | null;
}

/** The balance rows, locked in customer-id order (so two batches over the same customers queue, never deadlock). */
const LOCK_SQL = `SELECT 1 FROM "LoyaltyData" WHERE "programId" = $1::uuid AND "customerId" = ANY($2::uuid[])
  ORDER BY "customerId" FOR UPDATE`;

const DUE_SQL = `SELECT DISTINCT "customerId" FROM "PointLot"
  WHERE "programId" = $1::uuid AND "customerId" = ANY($2::uuid[]) AND remaining > 0 AND "expiresAt" <= $3::timestamptz`;

const CURRENT_SQL = `SELECT l."customerId", l.balance, l."memberSince", l."loyaltyCustomerId", l."tierStatus",
    ct."currentTierId", ct."carryTierId"
  FROM "LoyaltyData" l JOIN "CustomerTier" ct ON ct."programId" = l."programId" AND ct."customerId" = l."customerId"
  WHERE l."programId" = $1::uuid AND l."customerId" = ANY($2::uuid[])`;

/** The loyalty fields of the customers whose fields differ, set-based (one statement for the whole batch). */
const SET_LOYALTY_SQL = `UPDATE "LoyaltyData" l SET "memberSince" = i."memberSince",
    "loyaltyCustomerId" = coalesce(i."loyaltyCustomerId", l."loyaltyCustomerId"), "tierStatus" = i."tierStatus", "updatedAt" = $3::timestamptz
  FROM jsonb_to_recordset($2::jsonb) AS i("customerId" uuid, "memberSince" timestamptz, "loyaltyCustomerId" text, "tierStatus" text)
  WHERE l."programId" = $1::uuid AND l."customerId" = i."customerId"`;

const SET_TIER_SQL = `UPDATE "CustomerTier" ct SET "currentTierId" = i."tierId", "carryTierId" = i."carryTierId",
    "tierChangedAt" = CASE WHEN ct."currentTierId" IS DISTINCT FROM i."tierId" THEN $3::timestamptz ELSE ct."tierChangedAt" END
  FROM jsonb_to_recordset($2::jsonb) AS i("customerId" uuid, "tierId" uuid, "carryTierId" uuid)
  WHERE ct."programId" = $1::uuid AND ct."customerId" = i."customerId"`;

/**
 * Applies validated `loyalty` items (`index`: the item's position in the batch, for error paths) in the caller's
 * transaction: all or nothing. 400 `unknown_tier` for a tier name the program lacks, 404 `customer_not_found` for an
 * e-mail with no live customer (an erased one included), 409 `conflict` for a loyaltyCustomerId already in use.
 */
export async function applyLoyaltyItems(
  tx: Tx,
  programId: string,
  items: { item: LoyaltyBatchItem; index: number }[],
  writer: LoyaltyWriter,
): Promise<{ entries: number }> {
  if (items.length === 0) return { entries: 0 };
  const now = writer.now ?? programNow(programId);
  const targets = await resolveTargets(tx, programId, items);
  const ids = targets.map((t) => t.customerId);
  await tx.$queryRawUnsafe(LOCK_SQL, programId, ids);
  const due = await tx.$queryRawUnsafe<{ customerId: string }[]>(DUE_SQL, programId, ids, now.toISOString());
  for (const { customerId } of due) await expireDueLots(tx, programId, customerId, now);
  const rows = await tx.$queryRawUnsafe<Current[]>(CURRENT_SQL, programId, ids);
  const current = new Map(rows.map((r) => [r.customerId, r]));

  let entries = 0;
  const loyaltyChanges: object[] = [];
  const tierChanges: object[] = [];
  const events: { type: EventType; data: Record<string, unknown> }[] = [];
  for (const t of targets) {
    const cur = current.get(t.customerId);
    if (!cur) throw new Error(`customer ${t.customerId} without loyalty data`);
    const points = t.balance - cur.balance;
    // No tier named: the customer's own, so nothing about it changes.
    const tier = t.tier ?? {
      tierId: cur.currentTierId,
      carryTierId: cur.carryTierId,
      tierStatus: cur.tierStatus as TierStatus,
    };
    if (points !== 0) {
      await changeBalance(tx, {
        programId,
        customerId: t.customerId,
        points,
        type: "adjust",
        source: "api",
        actor: writer.actor,
        reason: OPENING_BALANCE_REASON,
        idempotencyKey: writer.idempotencyKey,
        now,
      });
      entries++;
    }
    const changes = [
      ...(new Date(cur.memberSince).getTime() !== t.memberSince.getTime() ? ["memberSince"] : []),
      ...(t.loyaltyCustomerId !== undefined && t.loyaltyCustomerId !== cur.loyaltyCustomerId
        ? ["loyaltyCustomerId"]
        : []),
      ...(cur.tierStatus !== tier.tierStatus ? ["tierStatus"] : []),
    ];
    const tierMoved = cur.currentTierId !== tier.tierId;
    if (tierMoved || cur.carryTierId !== tier.carryTierId) {
      tierChanges.push({ customerId: t.customerId, tierId: tier.tierId, carryTierId: tier.carryTierId });
      if (!changes.includes("tierStatus")) changes.push("customerTier");
    }
    if (changes.length) {
      loyaltyChanges.push({
        customerId: t.customerId,
        memberSince: t.memberSince.toISOString(),
        loyaltyCustomerId: t.loyaltyCustomerId ?? null,
        tierStatus: tier.tierStatus,
      });
      events.push({ type: "customer.updated", data: { customerId: t.customerId, email: t.email, changes } });
    }
    if (tierMoved) {
      events.push({
        type: "tier.changed",
        data: {
          customerId: t.customerId,
          fromTierId: cur.currentTierId,
          toTierId: tier.tierId,
          tierStatus: tier.tierStatus,
        },
      });
    }
  }
  if (loyaltyChanges.length) {
    await uniqueOr409(
      () => tx.$executeRawUnsafe(SET_LOYALTY_SQL, programId, JSON.stringify(loyaltyChanges), now.toISOString()),
      () => conflict("A loyaltyCustomerId in this batch already belongs to another customer."),
      "loyaltyCustomerId",
    );
  }
  if (tierChanges.length)
    await tx.$executeRawUnsafe(SET_TIER_SQL, programId, JSON.stringify(tierChanges), now.toISOString());
  await emitEvents(tx, programId, events, now);
  return { entries };
}
