import "@/lib/zod-browser";
import { z } from "zod";
import { ImageUrl, MAX_POINTS } from "@/lib/api/schemas/common";
import { CancelRedemptionRequest, RedeemRequest } from "@/lib/api/schemas/rewards";

/** Rewards: the catalogue's create and edit forms, and redeeming or cancelling from the customer page. */

/** Cancel a redemption from the customer page: the API's body (a reason). */
export const CancelRedemptionForm = CancelRedemptionRequest;
export type CancelRedemptionForm = z.infer<typeof CancelRedemptionForm>;

export const RedeemForm = RedeemRequest.extend({ rewardId: z.uuid("choose a reward") });
export type RedeemForm = z.infer<typeof RedeemForm>;

/** Whole points, at least 1: a reward's cost, an earning flow's fixed points. */
export const Cost = z
  .number("must be a whole number of points")
  .int("must be a whole number of points")
  .min(1, "must be at least 1")
  .max(MAX_POINTS);
/** Units left; null is unlimited. */
const Stock = z
  .number("must be a whole number")
  .int("must be a whole number")
  .min(0, "must not be negative")
  .max(MAX_POINTS)
  .nullable();

/** Redemptions one customer may make of a reward, ever; null is no limit. */
const PerCustomerLimit = z
  .number("must be a whole number")
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(MAX_POINTS)
  .nullable();

/** The fields of a reward, as created and as edited. */
const RewardFields = {
  name: z.string().trim().min(1, "a name is required").max(255),
  description: z.string().trim().max(2000).nullable().optional(),
  image: ImageUrl.nullable().optional(),
  costPoints: Cost,
  stock: Stock.optional(),
  active: z.boolean().optional(),
  perCustomerLimit: PerCustomerLimit.optional(),
  /** The lowest tier that may redeem it; null: every customer. */
  minTierId: z.uuid("choose a tier").nullable().optional(),
};

/** A new reward, with the CLI's `reward create` rules. */
export const RewardForm = z.strictObject(RewardFields);
export type RewardForm = z.infer<typeof RewardForm>;

/** A change to a reward (its edit drawer, or the table's on/off button): any of its fields, at least one. */
export const RewardUpdate = z
  .strictObject({ ...RewardFields, name: RewardFields.name.optional(), costPoints: Cost.optional() })
  .refine((u) => Object.values(u).some((v) => v !== undefined), "nothing to change");
export type RewardUpdate = z.infer<typeof RewardUpdate>;
