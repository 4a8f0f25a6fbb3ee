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

/** A BCP 47 language tag (`en`, `pt-BR`, `zh-Hant-TW`), stored in its canonical form (Intl.getCanonicalLocales). */
export const LanguageTag = z
  .string()
  .trim()
  .max(35)
  .transform((tag, ctx) => {
    try {
      const [canonical] = Intl.getCanonicalLocales(tag);
      if (canonical) return canonical;
    } catch {
      // RangeError: not a well-formed tag
    }
    ctx.addIssue({ code: "custom", message: "must be a BCP 47 language tag such as en or pt-BR", input: tag });
    return z.NEVER;
  })
  .meta({ examples: ["pt-BR"] });

/** The earliest birthdate accepted. */
export const MIN_BIRTHDATE = "1900-01-01";

/** A date of birth, `YYYY-MM-DD`: a real calendar date, from MIN_BIRTHDATE to yesterday (UTC). */
export const Birthdate = z.iso
  .date("must be a date (YYYY-MM-DD)")
  .pipe(
    z
      .string()
      .refine((d) => d >= MIN_BIRTHDATE, `must not be before ${MIN_BIRTHDATE}`)
      .refine((d) => d < new Date().toISOString().slice(0, 10), "must be a date in the past"),
  )
  .meta({ examples: ["1990-04-23"] });

/** The user item's `customAttributes`: at most 50 names; values checked against the declarations by the domain. */
export const CustomAttributeValues = z
  .record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must be a name of letters, digits and _ (at most 64)"),
    z.unknown().describe("A value of the attribute's declared type (number, string, boolean, ISO 8601 time), or null."),
  )
  .refine((r) => Object.keys(r).length <= 50, "must have at most 50 keys")
  .meta({ examples: [{ favouriteStore: "Madrid-Centro", vip: true }] });

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
    utmSource: OptionalText.describe("Where the customer came from (`utm_source` of the link they came by)."),
    utmMedium: OptionalText.describe("The `utm_medium` of the link the customer came by."),
    utmCampaign: OptionalText.describe("The `utm_campaign` of the link the customer came by."),
    language: LanguageTag.nullable().optional().describe("The customer's language, a BCP 47 tag, stored canonical."),
    birthdate: Birthdate.nullable()
      .optional()
      .describe(`Shown as \`userData.birthdate\`: a past date, not before ${MIN_BIRTHDATE}.`),
    customAttributes: CustomAttributeValues.optional().describe(
      "Values of the customer attributes the program declares (`PUT …/customer-attributes/{name}`), each of its declared type; merged into the stored ones, a null removes one. An undeclared name or a wrong type is 400 naming `[i].payload.customAttributes.<name>`.",
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
    balance: z.number().int().describe("Spendable points: pending points are not in it."),
    pendingPoints: z.number().int().describe("Points earned but not spendable yet (see `pending`)."),
    pending: z
      .array(
        z.object({
          id: Id,
          points: z.number().int(),
          orderId: z.string().nullable(),
          createdAt: Timestamp,
          maturesAt: Timestamp.nullable().describe("When they become spendable; null: when the order is confirmed."),
        }),
      )
      .describe('The pending points, soonest to mature first (API.md §4 "Pending points").'),
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
    customAttributes: z
      .record(z.string(), z.unknown())
      .describe("The customer's values of the program's declared customer attributes."),
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
