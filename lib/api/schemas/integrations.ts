import { z } from "zod";
import type { LoyaltyBatchItem, UserBatchItem } from "@/lib/domain/customers";
import { MAX_BALANCE } from "@/lib/domain/ledger";
import { USER_FEATURES } from "@/lib/domain/vocabulary";
import { Email, MAX_BATCH_ITEMS } from "./common";
import { UserPayload } from "./customers";

/** The integration batches (API.md §2 and §3): create/update customers, and erase them. */

/** A `user` item (spec §2.6); `users` is JeriCommerce's name for the same item. */
export const UserItem = z
  .strictObject({
    email: Email,
    feature: z.enum(USER_FEATURES).describe("`user`, or `users` (the same item, as JeriCommerce names it)."),
    payload: UserPayload,
  })
  .meta({ id: "UserItem" }) satisfies z.ZodType<UserBatchItem>;

/** A moment given as an ISO 8601 date-time with its offset, or a date (midnight UTC); not in the future. */
const PastInstant = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .refine((s) => Date.parse(s) <= Date.now() + 60_000, "must not be in the future")
  .meta({ examples: ["2021-03-14T09:26:53.000Z"] });

/** What a program coming from JeriCommerce knew of a customer's loyalty (lib/domain/loyalty-items.ts). */
export const LoyaltyPayload = z
  .strictObject({
    loyaltyCustomerId: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .optional()
      .describe("The customer's id in the former system; kept as `loyaltyData.loyaltyCustomerId`."),
    balance: z
      .number()
      .int()
      .min(0)
      .max(MAX_BALANCE)
      .describe(
        "The balance to set. The difference from the current balance is written as one `adjust` ledger entry " +
          '(reason "opening balance (migration)"); none when it is already this balance.',
      ),
    memberSince: PastInstant.describe("Set as `loyaltyData.memberSince`."),
    tierStatus: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .optional()
      .describe(
        "The NAME of one of the program's tiers (JeriCommerce's tierStatus), compared case-insensitively: the customer " +
          "holds it as a carried tier until the period ends (API.md §4). Another name is 400 `unknown_tier`. Optional, " +
          "as in JeriCommerce: left out, the customer's tier stays as it is.",
      ),
  })
  .meta({ id: "LoyaltyPayload" });

/** A `loyalty` item: the migrated state of an existing customer (created by a `user` item, in this batch or before). */
export const LoyaltyItem = z
  .strictObject({
    email: Email,
    feature: z.literal("loyalty"),
    payload: LoyaltyPayload,
  })
  .meta({ id: "LoyaltyItem" }) satisfies z.ZodType<LoyaltyBatchItem>;

export const IntegrationItem = z.discriminatedUnion("feature", [UserItem, LoyaltyItem]).meta({ id: "IntegrationItem" });
export type IntegrationItem = z.infer<typeof IntegrationItem>;

/**
 * How an item whose `feature` is none of the above is checked for its other problems, so that every problem of the
 * batch is listed (lib/api/batch.ts): as a user item.
 */
export const UnknownFeatureItem = UserItem.extend({ feature: z.unknown() });

/** A batch: one to MAX_BATCH_ITEMS items, all applied or none. */
const batchOf = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .min(1, "must contain at least one item")
    .max(MAX_BATCH_ITEMS, `must contain at most ${MAX_BATCH_ITEMS} items`);

export const IntegrationBatch = batchOf(IntegrationItem).meta({ id: "IntegrationBatch" });

export const DeleteItem = z.strictObject({ email: Email, feature: z.enum(USER_FEATURES) }).meta({ id: "DeleteItem" });
export const DeleteBatch = batchOf(DeleteItem).meta({ id: "DeleteBatch" });
