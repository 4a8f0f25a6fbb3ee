import { z } from "zod";
import type { AppError } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
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
