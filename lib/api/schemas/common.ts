import { z } from "zod";
import { emailAddress, MAX_EMAIL_LENGTH } from "@/lib/domain/email";

/**
 * The /v1 contract as zod schemas, one module per resource (this one holds what several share). Handlers
 * validate with the request schemas and /v1/openapi.json is generated from all of them (registered through
 * ./all.ts), so the documentation cannot drift from the code. Enums come from lib/domain/vocabulary.ts.
 */

export const MAX_BATCH_ITEMS = 1000;

/** The most points one request may add or take. */
export const MAX_POINTS = 1_000_000_000;

/**
 * An e-mail address by the one rule of lib/domain/email.ts, in its stored form: internationalised domains in their
 * ASCII (IDNA) form, UTF-8 local parts (RFC 6531) NFC-normalised and lower-cased; at most 254 characters.
 */
export const Email = z
  .string()
  .trim()
  .max(MAX_EMAIL_LENGTH)
  .transform((value, ctx) => {
    const address = emailAddress(value);
    if (address === null) ctx.addIssue({ code: "custom", message: "must be a valid e-mail address" });
    return address ?? value;
  })
  .describe(
    "An e-mail address. Internationalised domains (`jose@bücher.de`) and UTF-8 local parts (`josé@example.com`, RFC 6531) are accepted; it is stored and answered with its domain in ASCII (IDNA) form and lower-cased (`jose@xn--bcher-kva.de`), and any spelling of it names the same customer.",
  )
  .meta({ examples: ["jane.doe@example.com"] });

/*
 * No field here refuses U+0000 or unpaired surrogates itself: the edge's one text rule does, for every string of
 * every input (lib/api/text-rule.ts, applied by lib/api/edge.ts `parseWith`).
 */
const Text = z.string().trim().max(255);
export const OptionalText = Text.nullable().optional();

export const Timestamp = z.iso.datetime().meta({ examples: ["2026-11-22T15:31:33.000Z"] });
export const Id = z.string().meta({ examples: ["0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a"] });

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().meta({ examples: ["validation_failed"] }),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    requestId: z.string(),
  })
  .meta({ id: "Problem" });

/**
 * An image shown in the dashboard and apps (rewards, tiers): http(s) only, so no javascript:, data: or file: URL
 * is ever stored for a client to open.
 */
export const ImageUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).max(2000);

/** The most keys a `metadata` (or notification `data`) object may have. */
export const MAX_METADATA_KEYS = 20;

export const Metadata = z
  .record(z.string().min(1).max(64), z.union([z.string().max(255), z.number(), z.boolean(), z.null()]))
  .refine((m) => Object.keys(m).length <= MAX_METADATA_KEYS, `must have at most ${MAX_METADATA_KEYS} keys`)
  .describe(`Your own key/value data stored with the ledger entry (at most ${MAX_METADATA_KEYS} keys).`)
  // The refine above is invisible to z.toJSONSchema: state the same rule in the document.
  .meta({ maxProperties: MAX_METADATA_KEYS });

/**
 * A query parameter holding a whole number written in decimal digits. Not z.coerce.number(): Number() also reads
 * "1e2", "0x10", " 5", "" and "5.0" as integers.
 */
export const IntegerText = z
  .string()
  .regex(/^[0-9]{1,10}$/, "must be a whole number in decimal digits")
  .transform(Number);

/** A page size: 1 to MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE when left out. */
export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_CURSOR_LENGTH = 512;

export const PageQuery = z.strictObject({
  limit: IntegerText.pipe(z.number().int().min(1).max(MAX_PAGE_SIZE)).default(DEFAULT_PAGE_SIZE),
  cursor: z.string().max(MAX_CURSOR_LENGTH).optional(),
});
