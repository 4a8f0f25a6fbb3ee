import "@/lib/zod-browser";
import { z } from "zod";
import { RATE_LIMIT } from "@/lib/domain/api-key-limits";

/** API keys: a new key and its limits. */

const PerSecond = (max: number) =>
  z
    .number("must be a whole number")
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(max, `must be at most ${max.toLocaleString("en-US")}`);
/** A key's name and its token bucket (lib/domain/api-keys.ts RATE_LIMIT); left out, the domain's defaults apply. */
export const ApiKeyForm = z.strictObject({
  name: z.string().trim().min(1, "a name is required").max(255),
  rateLimitPerSec: PerSecond(RATE_LIMIT.maxPerSec).optional(),
  rateLimitBurst: PerSecond(RATE_LIMIT.maxBurst).optional(),
});
export type ApiKeyForm = z.infer<typeof ApiKeyForm>;

/** A key's new token bucket; the burst left out becomes 2 × the rate (lib/domain/api-key-limits.ts). */
export const ApiKeyLimits = z.strictObject({
  rateLimitPerSec: PerSecond(RATE_LIMIT.maxPerSec),
  rateLimitBurst: PerSecond(RATE_LIMIT.maxBurst).optional(),
});
export type ApiKeyLimits = z.infer<typeof ApiKeyLimits>;
