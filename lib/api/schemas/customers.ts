import { z } from "zod";
import type { UserFields } from "@/lib/domain/customers";
import { TIER_STATUSES } from "@/lib/domain/vocabulary";
import { Email, Id, OptionalText, Timestamp } from "./common";
import { Tier } from "./tiers";

/** Customers (API.md §2): the fields an integrator sets, the Customer read model, and the customer token. */

/** A referral code as typed (any case, spaces around); an unknown one is 400 `referral_code_unknown`. */
export const ReferralCode = z.string().trim().min(1, "must not be empty").max(64, "must be at most 64 characters");

/** POST …/customers/{email}/referral: record who referred the customer. */
export const ReferralRequest = z
  .strictObject({ code: ReferralCode.describe("The referrer's referral code (their `referralLink` carries it).") })
  .meta({ id: "ReferralRequest" });

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
    referralCode: ReferralCode.optional().describe(
      "The referral code of the customer who referred this one; recorded only before the customer's first earn.",
    ),
  })
  .meta({ id: "UserPayload" }) satisfies z.ZodType<UserFields>;
export type UserPayload = z.infer<typeof UserPayload>;

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

export const LoyaltyData = z
  .object({
    id: Id,
    customerId: Id,
    loyaltyCustomerId: z.string(),
    balance: z.number().int(),
    memberSince: Timestamp,
    tierStatus: z.enum(TIER_STATUSES),
    referralLink: z
      .string()
      .nullable()
      .describe("The program's referral link template with this customer's referral code; null without a template."),
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
    origin: z.string().meta({ examples: ["API"] }),
    referral: z.string().nullable().describe("The referral code of the customer who referred this one, or null."),
    utmCampaign: z.string().nullable(),
    utmSource: z.string().nullable(),
    utmMedium: z.string().nullable(),
    language: z.string().nullable(),
    balanceNotifications: z.boolean(),
    tierNotifications: z.boolean(),
    rewardAvailableNotifications: z.boolean(),
    locationNotifications: z.boolean(),
    marketingNotifications: z.boolean(),
    referralEarned: z
      .boolean()
      .describe("Whether this customer's referral completed (their first qualifying earn rewarded both sides)."),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    userData: UserData,
    loyaltyData: LoyaltyData,
    customerTier: CustomerTier,
  })
  .meta({ id: "Customer" });

export const CustomerToken = z.object({ token: z.string(), expiresAt: Timestamp }).meta({
  id: "CustomerToken",
  description: "A signed token for the customer-scoped /me routes, valid `expires_in` seconds (one hour by default).",
});
