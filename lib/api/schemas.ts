import { z } from "zod";
import { MAX_FLOW_PARAMS } from "@/lib/domain/flow-params";

/**
 * The /v1 contract as zod schemas. Handlers validate with the request schemas and
 * /v1/openapi.json is generated from all of them, so the documentation cannot drift from the code.
 */

export const MAX_BATCH_ITEMS = 1000;

/** Trimmed, lower-cased, at most 254 characters. */
export const Email = z
  .string()
  .trim()
  .max(254)
  .toLowerCase()
  .pipe(z.email({ message: "must be a valid e-mail address" }))
  .meta({ example: "jane.doe@example.com" });

/** PostgreSQL text cannot hold U+0000 nor unpaired UTF-16 surrogates: refuse them here rather than fail as a 500. */
const storable = (s: string) => !s.includes("\u0000") && s.isWellFormed();
const Text = z.string().trim().max(255).refine(storable, "must not contain U+0000 or unpaired surrogates");
const OptionalText = Text.nullable().optional();

export const UserPayload = z
  .strictObject({
    externalCustomerId: OptionalText,
    firstName: OptionalText,
    lastName: OptionalText,
    phone: z
      .string()
      .trim()
      .regex(/^\+?[0-9][0-9 ().-]{2,31}$/, "must be a phone number (digits, spaces, + ( ) . -)")
      .nullable()
      .optional(),
    emailVerified: z.boolean().optional(),
    email: Email.optional().describe("A new e-mail for the customer (renames it)."),
  })
  .meta({ id: "UserPayload" });
export type UserPayload = z.infer<typeof UserPayload>;

export const FEATURES = ["user"] as const;

export const IntegrationItem = z
  .strictObject({
    email: Email,
    feature: z.enum(FEATURES),
    payload: UserPayload,
  })
  .meta({ id: "IntegrationItem" });
export type IntegrationItem = z.infer<typeof IntegrationItem>;

export const IntegrationBatch = z
  .array(IntegrationItem)
  .min(1, "must contain at least one item")
  .max(MAX_BATCH_ITEMS, `must contain at most ${MAX_BATCH_ITEMS} items`)
  .meta({ id: "IntegrationBatch" });

const Timestamp = z.iso.datetime().meta({ example: "2026-11-22T15:31:33.000Z" });
const Id = z.string().meta({ example: "0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a" });

export const Tier = z
  .object({
    id: Id,
    programId: Id,
    name: z.string(),
    content: z.string().nullable(),
    image: z.string().nullable(),
    requiredPoints: z.number().int(),
    factor: z.number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "Tier" });

export const UserData = z
  .object({
    id: Id,
    customerId: Id,
    externalCustomerId: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    phone: z.string().nullable(),
    birthdate: z.string().nullable(),
    emailVerified: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "UserData" });

export const TierStatus = z.enum(["base", "earned", "carried"]);

export const LoyaltyData = z
  .object({
    id: Id,
    customerId: Id,
    loyaltyCustomerId: z.string(),
    balance: z.number().int(),
    memberSince: Timestamp,
    tierStatus: TierStatus,
    referralLink: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "LoyaltyData" });

export const CustomerTier = z
  .object({
    id: Id,
    customerId: Id,
    currentTierId: Id.nullable(),
    carryTierId: Id.nullable(),
    currentTierPoints: z.number().int(),
    carryTierPoints: z.number().int(),
    tierChangedAt: Timestamp.nullable(),
    recalculationDate: Timestamp.nullable(),
    currentTier: Tier.nullable(),
    carryTier: Tier.nullable(),
  })
  .meta({ id: "CustomerTier" });

export const Customer = z
  .object({
    id: Id,
    programId: Id,
    email: z.string(),
    origin: z.string().meta({ example: "API" }),
    referral: z.string().nullable(),
    utmCampaign: z.string().nullable(),
    utmSource: z.string().nullable(),
    utmMedium: z.string().nullable(),
    language: z.string().nullable(),
    balanceNotifications: z.boolean(),
    tierNotifications: z.boolean(),
    rewardAvailableNotifications: z.boolean(),
    locationNotifications: z.boolean(),
    marketingNotifications: z.boolean(),
    referralEarned: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    userData: UserData,
    loyaltyData: LoyaltyData,
    customerTier: CustomerTier,
  })
  .meta({ id: "Customer" });

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().meta({ example: "validation_failed" }),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    requestId: z.string(),
  })
  .meta({ id: "Problem" });

export const MAX_POINTS = 1_000_000_000;

/** A coupon code as importCoupons accepts it: letters, digits, - and _, starting with a letter or digit, at most 64. */
/**
 * An image shown in the dashboard and apps (rewards, tiers): http(s) only, so no javascript:, data: or file: URL
 * is ever stored for a client to open.
 */
export const ImageUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).max(2000);

export const COUPON_CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const Metadata = z
  .record(
    z.string().min(1).max(64).refine(storable, "must not contain U+0000 or unpaired surrogates"),
    z.union([z.string().max(255).refine(storable, "must not contain U+0000 or unpaired surrogates"), z.number(), z.boolean(), z.null()]),
  )
  .refine((m) => Object.keys(m).length <= 20, "must have at most 20 keys")
  .describe("Your own key/value data stored with the ledger entry (at most 20 keys).");

export const PointsChange = z
  .strictObject({
    points: z.number().int().min(1).max(MAX_POINTS),
    reason: z.string().trim().max(255).nullable().optional(),
    metadata: Metadata.nullable().optional(),
  })
  .meta({ id: "PointsChange" });

export const LedgerType = z.enum(["earn", "spend", "adjust", "redeem", "expire", "reversal"]);
export const LedgerSource = z.enum(["api", "dashboard", "earning_flow", "system"]);

export const Transaction = z
  .object({
    id: Id,
    customerId: Id,
    type: LedgerType,
    points: z.number().int().describe("Signed: positive adds to the balance, negative takes from it."),
    balanceAfter: z.number().int(),
    reason: z.string().nullable(),
    source: LedgerSource,
    actor: z.string().meta({ example: "api_key:0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a" }),
    idempotencyKey: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    createdAt: Timestamp,
    expiresAt: Timestamp.nullable(),
  })
  .meta({ id: "Transaction" });

export const BalanceResult = z.object({ balance: z.number().int(), transaction: Transaction }).meta({ id: "BalanceResult" });

export const TransactionPage = z
  .object({ data: z.array(Transaction), nextCursor: z.string().nullable() })
  .meta({ id: "TransactionPage" });

export const TierList = z.object({ data: z.array(Tier) }).meta({ id: "TierList" });

/**
 * A query parameter holding a whole number written in decimal digits. Not z.coerce.number(): Number() also reads
 * "1e2", "0x10", " 5", "" and "5.0" as integers.
 */
const IntegerText = z.string().regex(/^[0-9]{1,10}$/, "must be a whole number in decimal digits").transform(Number);

export const PageQuery = z.strictObject({
  limit: IntegerText.pipe(z.number().int().min(1).max(200)).default(50),
  cursor: z.string().max(512).optional(),
});

/** The flow's declared parameters, by name: numbers only, no nesting; the flow checks names and bounds. */
export const EarningFlowRun = z
  .strictObject({
    params: z
      .record(z.string().max(64), z.number("must be a number"))
      .refine((p) => Object.keys(p).length <= MAX_FLOW_PARAMS, `must have at most ${MAX_FLOW_PARAMS} keys`)
      .optional()
      .describe(
        "The values of the parameters the flow declares (set when the flow is created in the dashboard or CLI): each a number within " +
          "its declared bounds, required ones present. An undeclared name, a non-number or a nested value is 400 `validation_failed` " +
          "naming `params.<name>`; only declared values are stored in the ledger entry's metadata.",
      )
      .meta({ maxProperties: MAX_FLOW_PARAMS, example: { amount: 42.5 } }),
  })
  .meta({ id: "EarningFlowRun" });

export const EarningFlowResult = z
  .object({
    pointsEarned: z.number().int(),
    balance: z.number().int(),
    transaction: Transaction.nullable(),
    capped: z.enum(["once", "cap_total", "cap_per_day"]).nullable().describe("Which cap limited this run, if any."),
  })
  .meta({ id: "EarningFlowResult" });

export const DeleteItem = z.strictObject({ email: Email, feature: z.enum(FEATURES) }).meta({ id: "DeleteItem" });
export const DeleteBatch = z
  .array(DeleteItem)
  .min(1, "must contain at least one item")
  .max(MAX_BATCH_ITEMS, `must contain at most ${MAX_BATCH_ITEMS} items`)
  .meta({ id: "DeleteBatch" });

export const CustomerToken = z
  .object({ token: z.string(), expiresAt: Timestamp })
  .meta({ id: "CustomerToken", description: "A signed token for the customer-scoped /me routes, valid one hour." });

export const Reward = z
  .object({
    id: Id,
    programId: Id,
    name: z.string(),
    description: z.string().nullable(),
    image: z.string().nullable(),
    costPoints: z.number().int(),
    stock: z.number().int().nullable().describe("Units left; null means unlimited."),
    active: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "Reward" });
export const RewardList = z.object({ data: z.array(Reward) }).meta({ id: "RewardList" });

export const RedeemRequest = z.strictObject({ metadata: Metadata.nullable().optional() }).meta({ id: "RedeemRequest" });
export const RedeemResult = z
  .object({
    redemption: z.object({
      id: Id,
      rewardId: Id,
      customerId: Id,
      code: z.string().meta({ example: "KQ7MZ-4HT2P" }),
      points: z.number().int(),
      transactionId: Id,
      metadata: z.record(z.string(), z.unknown()).nullable(),
      createdAt: Timestamp,
    }),
    balance: z.number().int(),
  })
  .meta({ id: "RedeemResult" });

export const CouponRequest = z.strictObject({ couponPoolId: z.uuid() }).meta({ id: "CouponRequest" });
export const CouponResult = z
  .object({ coupon: z.object({ code: z.string(), couponPoolId: Id, assignedAt: Timestamp, expiresAt: Timestamp.nullable() }) })
  .meta({ id: "CouponResult" });

export const NotificationRequest = z
  .strictObject({
    title: z.string().trim().min(1).max(120).refine(storable, "must not contain U+0000 or unpaired surrogates"),
    body: z.string().trim().min(1).max(1000).refine(storable, "must not contain U+0000 or unpaired surrogates"),
    category: z.enum(["balance", "tier", "rewardAvailable", "location", "marketing"]),
    data: Metadata.nullable().optional(),
  })
  .meta({ id: "NotificationRequest" });
export const NotificationResult = z
  .object({ notification: z.object({ id: Id, status: z.enum(["queued", "suppressed"]) }) })
  .meta({ id: "NotificationResult" });
