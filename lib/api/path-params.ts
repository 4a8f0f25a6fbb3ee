import { z } from "zod";
import type { AppError } from "@/lib/errors";
import { earningFlowNotFound } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import { EARNING_FLOW_KEY } from "@/lib/domain/vocabulary";
import type { PathParam } from "./route-factories";

/** A UUID in any case, lower-cased as the database stores it. */
const UUID_SEGMENT = z
  .string()
  .refine((id) => isUuid(id))
  .transform((id) => id.toLowerCase());

/**
 * A path segment that names a record by its UUID. A malformed id is simply an unknown record: `orElse` is that
 * record's 404, so a caller cannot tell a malformed id from a missing one (and no malformed id reaches a uuid column).
 */
export const uuidParam = (orElse: () => AppError): PathParam => ({ schema: UUID_SEGMENT, orElse });

/**
 * The `{flowKey}` segment: a key as flows are created with (EARNING_FLOW_KEY, at most 64 characters). Any other is
 * an unknown flow, 404 `earning_flow_not_found`, whose message quotes only the start of it.
 */
export const flowKeyParam: PathParam = { schema: z.string().regex(EARNING_FLOW_KEY), orElse: earningFlowNotFound };
