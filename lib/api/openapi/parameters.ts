import "server-only";
import { MAX_TOKEN_TTL_SECONDS, TOKEN_TTL_SECONDS } from "@/lib/domain/customer-tokens";
import { EARNING_FLOW_KEY } from "@/lib/domain/vocabulary";
import { IDEMPOTENCY_KEY } from "@/lib/header-names";
import { DEFAULT_PAGE_SIZE, MAX_CURSOR_LENGTH, MAX_PAGE_SIZE } from "../schemas/common";
import { EXAMPLE_IDS } from "./examples";

/** The parameters the operations beside the route files (app/v1/**\/openapi.ts) name, each declared once. */

/** A path segment: always required. */
const inPath = (name: string, description: string, example: string, schema: object = { type: "string" }) => ({
  name,
  in: "path",
  required: true,
  description,
  schema,
  example,
});

export const programId = inPath(
  "programId",
  "The program's id (a UUID, in any case). With an api-key, only the key's own program: another is 404 `not_found`.",
  EXAMPLE_IDS.programId,
);
export const email = inPath(
  "email",
  "The customer's e-mail, URL-encoded; compared case-insensitively.",
  EXAMPLE_IDS.email,
  { type: "string", maxLength: 254 },
);
export const rewardId = inPath(
  "rewardId",
  "The reward's id. A value that is not a UUID is an unknown reward (404 `reward_not_found`).",
  EXAMPLE_IDS.rewardId,
);
export const flowKey = inPath(
  "flowKey",
  "The earning flow's key, as set when the flow was created. Any other value is an unknown flow (404 " +
    "`earning_flow_not_found`, quoting at most its first 64 characters).",
  "store-purchase",
  { type: "string", pattern: EARNING_FLOW_KEY.source, maxLength: 64 },
);
export const transactionId = inPath(
  "transactionId",
  "The ledger entry's id (`transaction.id`). A value that is not a UUID is an unknown one (404 `transaction_not_found`).",
  EXAMPLE_IDS.transactionId,
);
export const orderId = inPath(
  "orderId",
  "The `orderId` sent with increase balance or an earning-flow run (1 to 128 characters, URL-encoded).",
  "1042",
  { type: "string", minLength: 1, maxLength: 128 },
);
export const redemptionId = inPath(
  "redemptionId",
  "The redemption's id (`redemption.id` of Redeem a reward). A value that is not a UUID is an unknown redemption (404 `redemption_not_found`).",
  "0193a5b3-04b0-72da-8fee-c1b0ad9e8f76",
);

export const idempotencyKey = {
  name: IDEMPOTENCY_KEY,
  in: "header",
  required: false,
  description:
    "Retries with the same key and body within 24 h replay the first outcome (marked `idempotent-replayed: true`) instead of acting twice; the same key with another body is 409 `idempotency_conflict`. 1 to 255 characters, else 400 `validation_failed`.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
  example: "order-1042",
};

/** `limit` and `cursor` of a ledger page (PageQuery in ../schemas/common.ts). */
export const pageParameters = [
  {
    name: "limit",
    in: "query",
    required: false,
    description: `Entries per page, 1 to ${MAX_PAGE_SIZE}, in decimal digits. Anything else is 400 \`validation_failed\`.`,
    schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  },
  {
    name: "cursor",
    in: "query",
    required: false,
    description: "`nextCursor` of the previous page; leave it out for the first (newest) page.",
    schema: { type: "string", maxLength: MAX_CURSOR_LENGTH },
  },
];

/** `expires_in` of both token operations (../schemas/tokens.ts). */
export const expiresIn = {
  name: "expires_in",
  in: "query",
  required: false,
  description: `Seconds the token stays valid, 1 to ${MAX_TOKEN_TTL_SECONDS} (7 days), in decimal digits; ${TOKEN_TTL_SECONDS} (one hour) when left out. Anything else is 400 \`validation_failed\`.`,
  schema: { type: "integer", minimum: 1, maximum: MAX_TOKEN_TTL_SECONDS, default: TOKEN_TTL_SECONDS },
};

export const eventType = inPath(
  "type",
  "The event type's name: 1 to 64 letters, digits, `_`, `.` or `-` (else 400 `validation_failed`).",
  "purchase",
  { type: "string", pattern: "^[A-Za-z0-9_.-]{1,64}$" },
);
export const campaignId = inPath(
  "campaignId",
  "The campaign's id. A value that is not a UUID is an unknown campaign (404 `not_found`).",
  "0193a5b3-1c2d-7e3f-8a4b-5c6d7e8f9a0b",
);
export const dryRun = {
  name: "dryRun",
  in: "query",
  required: false,
  description: "`true`: evaluate and answer the same, and store nothing (no entry, no counter, no event, no webhook).",
  schema: { type: "string", enum: ["true", "false"] },
};
export const customerAttributeName = inPath(
  "name",
  "The customer attribute's name: letters, digits and `_`, at most 64, not starting with a digit (else 400 `validation_failed`).",
  "favouriteStore",
  { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]{0,63}$" },
);
export const segmentId = inPath(
  "segmentId",
  "The segment's id. A value that is not a UUID is an unknown segment (404 `not_found`).",
  "0193a5b3-7c20-7d1e-9a3b-4c5d6e7f8091",
);
