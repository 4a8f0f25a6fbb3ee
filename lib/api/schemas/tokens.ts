import { z } from "zod";
import { MAX_TOKEN_TTL_SECONDS } from "@/lib/domain/customer-tokens";
import { Email, IntegerText } from "./common";

/** Customer tokens' queries (API.md §3) and the JeriCommerce alias's answer. The token itself: CustomerToken. */

/** `expires_in`: a token's lifetime in seconds, 1 to 7 days, one hour when left out. */
const ExpiresIn = IntegerText.pipe(
  z
    .number()
    .int()
    .min(1, "must be at least 1 second")
    .max(MAX_TOKEN_TTL_SECONDS, `must be at most ${MAX_TOKEN_TTL_SECONDS} seconds (7 days)`),
)
  .optional()
  .describe(`Seconds the token stays valid: 1 to ${MAX_TOKEN_TTL_SECONDS} (7 days); one hour when left out.`);

export const TokenQuery = z.strictObject({ expires_in: ExpiresIn });

/** The JeriCommerce alias of Get a customer token names the customer by `?email=`. */
export const TokenAliasQuery = z.strictObject({ email: Email, expires_in: ExpiresIn });

export const CustomerAccessToken = z.object({ accessToken: z.string() }).meta({
  id: "CustomerAccessToken",
  description: "JeriCommerce's shape of a customer token: the same token as CustomerToken's `token`.",
});
