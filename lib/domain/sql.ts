import "server-only";
import { isoSql } from "@/lib/db/types";

/**
 * Read models are built as JSON by PostgreSQL itself: one round trip, no per-field mapping in JavaScript,
 * and the output shape (spec field names, ISO timestamps, null for absent values) defined once here.
 */

type Fields = Record<string, string>;

export const jsonObject = (fields: Fields) =>
  `json_build_object(${Object.entries(fields)
    .map(([name, expr]) => `'${name}', ${expr}`)
    .join(", ")})`;

const col = (alias: string, name: string) => `${alias}."${name}"`;
const ts = (alias: string, name: string) => isoSql(col(alias, name));

export const tierFields = (t: string): Fields => ({
  id: col(t, "id"),
  programId: col(t, "programId"),
  name: col(t, "name"),
  content: col(t, "content"),
  image: col(t, "image"),
  requiredPoints: col(t, "requiredPoints"),
  factor: col(t, "factor"),
  createdAt: ts(t, "createdAt"),
  updatedAt: ts(t, "updatedAt"),
});

const nullableTier = (t: string) => `CASE WHEN ${t}.id IS NULL THEN NULL ELSE ${jsonObject(tierFields(t))} END`;

/** The spec's Customer (§2.1) with its nested objects, from aliases c, u, l, ct, t1 (current tier), t2 (carry tier). */
export const customerJson = jsonObject({
  id: "c.id",
  programId: 'c."programId"',
  email: "c.email",
  origin: "c.origin",
  referral: "c.referral",
  utmCampaign: 'c."utmCampaign"',
  utmSource: 'c."utmSource"',
  utmMedium: 'c."utmMedium"',
  language: "c.language",
  balanceNotifications: 'c."balanceNotifications"',
  tierNotifications: 'c."tierNotifications"',
  rewardAvailableNotifications: 'c."rewardAvailableNotifications"',
  locationNotifications: 'c."locationNotifications"',
  marketingNotifications: 'c."marketingNotifications"',
  referralEarned: 'c."referralEarned"',
  customAttributes: 'c."customAttributes"',
  createdAt: ts("c", "createdAt"),
  updatedAt: ts("c", "updatedAt"),
  userData: jsonObject({
    id: "u.id",
    customerId: 'u."customerId"',
    externalCustomerId: 'u."externalCustomerId"',
    firstName: 'u."firstName"',
    lastName: 'u."lastName"',
    phone: "u.phone",
    birthdate: "u.birthdate",
    emailVerified: 'u."emailVerified"',
    createdAt: ts("u", "createdAt"),
    updatedAt: ts("u", "updatedAt"),
  }),
  loyaltyData: jsonObject({
    id: "l.id",
    customerId: 'l."customerId"',
    loyaltyCustomerId: 'l."loyaltyCustomerId"',
    balance: "l.balance",
    // Pending points (lib/domain/pending.ts): not in the balance; each with when it matures (null: on confirmation).
    pendingPoints: `(SELECT coalesce(sum(x.points), 0)::int FROM "PendingPoints" x WHERE x."customerId" = c.id AND x.status = 'pending')`,
    pending: `(SELECT coalesce(json_agg(json_build_object('id', x.id, 'points', x.points, 'orderId', x."orderId",
                 'createdAt', ${isoSql('x."createdAt"')}, 'maturesAt', ${isoSql('x."maturesAt"')})
               ORDER BY x."maturesAt" NULLS LAST, x."createdAt", x.id), '[]')
               FROM "PendingPoints" x WHERE x."customerId" = c.id AND x.status = 'pending')`,
    memberSince: ts("l", "memberSince"),
    tierStatus: 'l."tierStatus"',
    // The program's template with the customer's code (lib/domain/referrals.ts), so a new template applies to all.
    referralLink: `(SELECT replace(p."referralLinkTemplate", '{code}', c."referralCode") FROM "Program" p WHERE p.id = c."programId")`,
    createdAt: ts("l", "createdAt"),
    updatedAt: ts("l", "updatedAt"),
  }),
  customerTier: jsonObject({
    id: "ct.id",
    customerId: 'ct."customerId"',
    currentTierId: 'ct."currentTierId"',
    carryTierId: 'ct."carryTierId"',
    currentTierPoints: 'ct."currentTierPoints"',
    carryTierPoints: 'ct."carryTierPoints"',
    tierChangedAt: ts("ct", "tierChangedAt"),
    recalculationDate: ts("ct", "recalculationDate"),
    currentTier: nullableTier("t1"),
    carryTier: nullableTier("t2"),
  }),
});

export const customerJoins = `
  JOIN "UserData" u ON u."customerId" = c.id
  JOIN "LoyaltyData" l ON l."programId" = c."programId" AND l."customerId" = c.id
  JOIN "CustomerTier" ct ON ct."programId" = c."programId" AND ct."customerId" = c.id
  LEFT JOIN "Tier" t1 ON t1.id = ct."currentTierId"
  LEFT JOIN "Tier" t2 ON t2.id = ct."carryTierId"`;

/** The data of a `balance.changed` event (its webhook schema: lib/api/openapi-webhooks.ts) from ledger entry alias e. */
export const balanceChangedData = (e: string) =>
  `jsonb_build_object('customerId', ${e}."customerId", 'transactionId', ${e}.id, 'type', ${e}.type, 'points', ${e}.points, 'balance', ${e}."balanceAfter")`;

/**
 * balance.changed of an entry the campaign engine made (campaigns/event-write.ts): when its metadata names a campaign,
 * with `campaign`: the campaign, the version that applied and the customer event that caused it; an earning flow's
 * entry (no campaign in its metadata) has the plain data.
 */
export const campaignBalanceChangedData = (e: string) =>
  `${balanceChangedData(e)} || CASE WHEN ${e}.metadata->'campaignId' IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('campaign', jsonb_build_object('campaignId', ${e}.metadata->'campaignId', 'version', ${e}.metadata->'campaignVersion', 'eventId', ${e}.metadata->'eventId')) END`;

/** A ledger entry (API.md §4) from alias e. */
export const ledgerEntryJson = (e: string) =>
  jsonObject({
    id: col(e, "id"),
    customerId: col(e, "customerId"),
    type: col(e, "type"),
    points: col(e, "points"),
    balanceAfter: col(e, "balanceAfter"),
    reason: col(e, "reason"),
    source: col(e, "source"),
    actor: col(e, "actor"),
    idempotencyKey: col(e, "idempotencyKey"),
    metadata: col(e, "metadata"),
    orderId: col(e, "orderId"),
    reversesId: col(e, "reversesId"),
    createdAt: ts(e, "createdAt"),
    expiresAt: ts(e, "expiresAt"),
  });
