import "@/lib/zod-browser";
import { z } from "zod";

/**
 * A new staff password, as lib/domain/staff.ts `checkPassword` takes it: at least 12 characters, at most 72 bytes of
 * UTF-8 (bcrypt reads no further, so a longer password would be cut silently). An accented letter takes two bytes,
 * so the form counts bytes, as the domain does, and says so.
 */
export const NewPassword = z
  .string()
  .min(12, "must be at least 12 characters")
  .refine(
    (p) => new TextEncoder().encode(p).length <= 72,
    "must be at most 72 bytes (72 plain letters; accented letters and symbols count 2 to 4)",
  );
