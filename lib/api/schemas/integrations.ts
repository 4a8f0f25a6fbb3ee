import { z } from "zod";
import type { UserBatchItem } from "@/lib/domain/customers";
import { FEATURES } from "@/lib/domain/vocabulary";
import { Email, MAX_BATCH_ITEMS } from "./common";
import { UserPayload } from "./customers";

/** The integration batches (API.md §2 and §3): create/update customers, and erase them. */

export const IntegrationItem = z
  .strictObject({
    email: Email,
    feature: z.enum(FEATURES),
    payload: UserPayload,
  })
  .meta({ id: "IntegrationItem" }) satisfies z.ZodType<UserBatchItem>;
export type IntegrationItem = z.infer<typeof IntegrationItem>;

/** A batch: one to MAX_BATCH_ITEMS items, all applied or none. */
const batchOf = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .min(1, "must contain at least one item")
    .max(MAX_BATCH_ITEMS, `must contain at most ${MAX_BATCH_ITEMS} items`);

export const IntegrationBatch = batchOf(IntegrationItem).meta({ id: "IntegrationBatch" });

export const DeleteItem = z.strictObject({ email: Email, feature: z.enum(FEATURES) }).meta({ id: "DeleteItem" });
export const DeleteBatch = batchOf(DeleteItem).meta({ id: "DeleteBatch" });
