/**
 * The one catalogue of error codes. Each `code` is part of the public contract (API.md §1): it has one HTTP
 * status, chosen here, one factory below, and one meaning that the OpenAPI document's error descriptions are
 * built from. Domain code throws these; the HTTP edge turns them into RFC 9457 problem details
 * (`lib/api/problem.ts`) and the dashboard into inline messages. Anything else is a bug and surfaces as a bare
 * 500 `internal`. Write `new AppError` nowhere but here.
 */

import { RETRY_AFTER } from "@/lib/header-names";

/** One problem in a rejected request, named by its JSON path (e.g. `[3].payload.phone`). */
export interface FieldProblem {
  path: string;
  message: string;
}

export const ERROR_CATALOGUE = {
  validation_failed: {
    status: 400,
    meaning: "a field, parameter or header is invalid; every problem is listed with its path",
  },
  unsupported_feature: { status: 400, meaning: "only `feature` values this service does not support were sent" },
  invalid_json: { status: 400, meaning: "the body is not valid JSON" },
  invalid_path: {
    status: 400,
    meaning: "a path segment has a malformed percent-encoding, or an absolute request target names another host",
  },
  url_not_allowed: { status: 400, meaning: "deliveries cannot be sent to this URL" },
  invalid_callback_url: { status: 400, meaning: "the sign-in callback is not a page of this app" },
  referral_code_unknown: { status: 400, meaning: "no live customer of this program has this referral code" },
  referral_self: { status: 400, meaning: "a customer cannot be referred by themselves (or by someone they referred)" },
  unknown_tier: { status: 400, meaning: "a `loyalty` item names a tier the program does not have" },
  unauthorized: { status: 401, meaning: "missing, unknown or revoked credentials" },
  forbidden: { status: 403, meaning: "the signed-in staff member's role does not allow this" },
  cross_site_request: { status: 403, meaning: "a staff write sent from another site" },
  second_factor_required: {
    status: 403,
    meaning: "the program requires staff to have a second factor; set one up on the account page",
  },
  api_key_mode_mismatch: {
    status: 403,
    meaning: "a test key (`lk_test_`) on a live program, or a live key (`lk_live_`) on a test program",
  },
  adjustment_above_ceiling: { status: 403, meaning: "a manual adjustment above the role's ceiling" },
  not_found: { status: 404, meaning: "no such program, path or resource (or one of another program)" },
  customer_not_found: { status: 404, meaning: "no customer with this e-mail in this program" },
  reward_not_found: { status: 404, meaning: "no such reward in this program" },
  coupon_pool_not_found: { status: 404, meaning: "no such coupon pool in this program" },
  earning_flow_not_found: { status: 404, meaning: "no active earning flow with this key in this program" },
  redemption_not_found: { status: 404, meaning: "no such redemption in this program (or its customer was erased)" },
  transaction_not_found: { status: 404, meaning: "no such ledger entry of this customer in this program" },
  order_not_found: { status: 404, meaning: "no points were earned with this orderId in this program" },
  method_not_allowed: { status: 405, meaning: "the endpoint does not serve this method; see Allow" },
  conflict: {
    status: 409,
    meaning: "the change contradicts the current state (for example a unique e-mail); nothing was changed",
  },
  program_not_test: { status: 409, meaning: "only a test program's clock can be moved; this program is live" },
  stale_edit: {
    status: 409,
    meaning: "a staff edit was made from a version that someone else has changed since; nothing was changed",
  },
  idempotency_conflict: { status: 409, meaning: "the Idempotency-Key was already used with a different request" },
  insufficient_balance: { status: 409, meaning: "the balance is lower than the points to take; nothing was changed" },
  balance_limit: { status: 409, meaning: "the change would take a balance above the maximum; nothing was changed" },
  reward_inactive: { status: 409, meaning: "the reward is not available" },
  reward_out_of_stock: { status: 409, meaning: "the reward is out of stock" },
  coupon_pool_empty: { status: 409, meaning: "the coupon pool has no free codes left" },
  coupon_pool_inactive: { status: 409, meaning: "the coupon pool is deactivated and assigns no codes" },
  reward_limit_reached: {
    status: 409,
    meaning: "the customer has redeemed this reward as many times as it allows per customer",
  },
  reward_tier_required: { status: 409, meaning: "the customer's current tier is below the reward's minimum tier" },
  cancel_window_closed: {
    status: 409,
    meaning: "the program's window for cancelling a redemption has passed, or cancelling is turned off",
  },
  redemption_already_cancelled: { status: 409, meaning: "the redemption was cancelled already; nothing was changed" },
  transaction_not_reversible: {
    status: 409,
    meaning: "only earn, spend and manual adjustment entries can be reversed; nothing was changed",
  },
  reversal_exceeds_original: {
    status: 409,
    meaning: "the points asked exceed what is left to reverse of the entry; nothing was changed",
  },
  referral_already_recorded: { status: 409, meaning: "the customer already has a referral (by another code)" },
  referral_after_first_earn: {
    status: 409,
    meaning: "the customer has already earned points: a referral is recorded only before the first earn",
  },
  link_invalid: { status: 410, meaning: "the one-time link is unknown, used already or expired" },
  payload_too_large: { status: 413, meaning: "the body is larger than the limit" },
  unsupported_media_type: { status: 415, meaning: "the body was not sent as application/json" },
  rate_limited: { status: 429, meaning: "too many requests; see Retry-After" },
  internal: { status: 500, meaning: "an unexpected error; no details are leaked, quote the requestId" },
  service_unavailable: { status: 503, meaning: "the database is unavailable; retry after Retry-After" },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The status of a code, from the catalogue. */
export const statusOf = (code: ErrorCode): number => ERROR_CATALOGUE[code].status;

/**
 * An error whose `code` is part of the public contract. Build one through a factory below, which takes the
 * status from the catalogue.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldProblem[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
  }
}

const fail = (code: ErrorCode, message: string, errors?: FieldProblem[], headers?: Record<string, string>) =>
  new AppError(statusOf(code), code, message, errors, headers);

// 400
/** 400 listing every field problem by path (or a more precise `code` for the same shape, e.g. `unsupported_feature`). */
export function validationFailed(
  errors: FieldProblem[],
  code: "validation_failed" | "unsupported_feature" = "validation_failed",
): AppError {
  const n = errors.length;
  return fail(code, `The request has ${n} invalid field${n === 1 ? "" : "s"}.`, errors);
}
/** A 400 `validation_failed` whose message is a whole sentence rather than a count (the CLI and forms show it as is). */
export const invalidInput = (message: string, errors?: FieldProblem[]) => fail("validation_failed", message, errors);
export const invalidJson = () => fail("invalid_json", "The body is not valid JSON.");
/** A body whose bytes are not UTF-8, whatever charset it declares (lib/api/json-body.ts). */
export const invalidUtf8 = () => fail("invalid_json", "The body is not valid UTF-8.");
/** A path segment that is not valid percent-encoded UTF-8: no route could read it (API.md §1). */
export const invalidPath = (message = "The path has a malformed percent-encoding.") => fail("invalid_path", message);
/** A webhook or push URL that deliveries must not go to (lib/net/delivery-target.ts). */
export const urlNotAllowed = (path: string, message: string) =>
  fail("url_not_allowed", "Deliveries cannot be sent to this URL.", [{ path, message }]);
export const invalidCallbackUrl = () => fail("invalid_callback_url", "callbackUrl must be a page of this app.");
export const referralCodeUnknown = (path: string) =>
  fail("referral_code_unknown", "No customer of this program has this referral code.", [
    { path, message: "is not a referral code of this program" },
  ]);
export const referralSelf = (path: string, message: string) =>
  fail("referral_self", "A customer cannot be referred by themselves or by someone they referred.", [
    { path, message },
  ]);
/** `loyalty` batch items whose `tierStatus` names no tier of the program, each by path. */
export const unknownTier = (errors: FieldProblem[]) =>
  fail("unknown_tier", "A tierStatus names no tier of this program; nothing was changed.", errors);

// 401, 403
export const invalidApiKey = () => fail("unauthorized", "A valid api-key header is required.");
export const invalidCustomerToken = () =>
  fail("unauthorized", "A valid customer token is required (Authorization: Bearer).");
export const signInRequired = () => fail("unauthorized", "Sign in to continue.");
export const invalidMetricsToken = () =>
  fail("unauthorized", "A valid metrics token is required (Authorization: Bearer).");
export const forbidden = (message: string) => fail("forbidden", message);
export const secondFactorRequired = () =>
  fail(
    "second_factor_required",
    "This program requires a second factor: set one up on your account page (/account), then come back.",
  );
export const apiKeyModeMismatch = (keyIsTest: boolean) =>
  fail(
    "api_key_mode_mismatch",
    keyIsTest
      ? "This is a test key (lk_test_): it acts only on its own test program, never on a live one."
      : "This is a live key (lk_live_): it never acts on a test program; use the test program's lk_test_ key.",
  );
export const programNotTest = () =>
  fail("program_not_test", "This program is live: only a test program's clock can be moved.");
/** A staff write sent from another site (or without Origin and Sec-Fetch-Site): refused before it is read. */
export const crossSiteRequest = () =>
  fail("cross_site_request", "Staff changes are accepted only from the dashboard's own pages.");
/** A dashboard balance adjustment larger than the staff member's role may make (lib/domain/adjustment-ceilings.ts). */
export const adjustmentAboveCeiling = (message: string) =>
  fail("adjustment_above_ceiling", `${message}.`, [{ path: "points", message }]);

// 404, 405
export const notFound = (what = "resource") => fail("not_found", `The ${what} was not found.`);
export const customerNotFound = () => fail("customer_not_found", "No customer with this e-mail in this program.");
/** Batch items naming customers that do not exist (or were erased), each by path. */
export const customersNotFound = (errors: FieldProblem[]) =>
  fail("customer_not_found", "No customer with this e-mail in this program; nothing was changed.", errors);
export const rewardNotFound = () => fail("reward_not_found", "No such reward in this program.");
export const couponPoolNotFound = () => fail("coupon_pool_not_found", "No such coupon pool in this program.");
export const transactionNotFound = () =>
  fail("transaction_not_found", "No such transaction of this customer in this program.");
export const orderNotFound = () => fail("order_not_found", "No points were earned with this orderId in this program.");
export const earningFlowNotFound = (flowKey: string) =>
  fail("earning_flow_not_found", `No active earning flow "${shortened(flowKey)}" in this program.`);
/** A client's value quoted in a message: at most 64 characters, so a 10,000-character path is not echoed whole. */
const shortened = (text: string) => (text.length > 64 ? `${text.slice(0, 64)}…` : text);
export const redemptionNotFound = () =>
  fail("redemption_not_found", "No such redemption in this program (or its customer was erased).");
/** The path names an endpoint that does not serve this method; `allow` lists those it does. */
export const methodNotAllowed = (allow: string) =>
  fail(
    "method_not_allowed",
    "This endpoint does not serve this method; the Allow header lists those it does.",
    undefined,
    { Allow: allow },
  );

// 409
export const conflict = (message: string, errors?: FieldProblem[]) => fail("conflict", message, errors);
/**
 * A staff edit made from an older version of what it changes (If-Match): nothing was changed. `changed` names,
 * in words, what was changed since (field names, with who changed them when known).
 */
export const staleEdit = (what: string, changed: string[]) =>
  fail(
    "stale_edit",
    `Someone else changed this ${what} since you opened it${
      changed.length > 0 ? ` (${changed.join("; ")})` : ""
    }: reload to see the current values, then make your change again. Nothing was saved.`,
  );
export const idempotencyConflict = () =>
  fail("idempotency_conflict", "This Idempotency-Key was already used with a different request.");
export const insufficientBalance = () =>
  fail("insufficient_balance", "The balance is lower than the points to take; nothing was changed.");
export const balanceLimit = (max: number) =>
  fail("balance_limit", `A balance cannot exceed ${max} points; nothing was changed.`);
export const rewardInactive = () => fail("reward_inactive", "The reward is not available.");
export const rewardOutOfStock = () => fail("reward_out_of_stock", "The reward is out of stock.");
export const couponPoolEmpty = () => fail("coupon_pool_empty", "The coupon pool has no free codes left.");
export const couponPoolInactive = () =>
  fail("coupon_pool_inactive", "The coupon pool is deactivated: it assigns no codes.");
export const rewardLimitReached = (limit: number) =>
  fail("reward_limit_reached", `A customer may redeem this reward at most ${limit} time${limit === 1 ? "" : "s"}.`);
export const rewardTierRequired = (tierName: string) =>
  fail("reward_tier_required", `Only customers on the "${tierName}" tier or a higher one may redeem this reward.`);
export const transactionNotReversible = (type: string) =>
  fail("transaction_not_reversible", `A ${type} entry cannot be reversed; nothing was changed.`);
export const reversalExceedsOriginal = (left: number) =>
  fail(
    "reversal_exceeds_original",
    left === 0
      ? "This transaction is already fully reversed; nothing was changed."
      : `At most ${left} points of this transaction are left to reverse; nothing was changed.`,
  );

/** `hours`: the program's cancel window (0: cancelling is turned off). */
export const cancelWindowClosed = (hours: number) =>
  fail(
    "cancel_window_closed",
    hours === 0
      ? "This program does not allow cancelling redemptions."
      : `A redemption may be cancelled only within ${hours} hour${hours === 1 ? "" : "s"} of being made.`,
  );
export const redemptionAlreadyCancelled = () =>
  fail("redemption_already_cancelled", "The redemption was cancelled already; nothing was changed.");
export const referralAlreadyRecorded = (path: string) =>
  fail("referral_already_recorded", "The customer already has a referral by another code; nothing was changed.", [
    { path, message: "differs from the customer's recorded referral" },
  ]);
export const referralAfterFirstEarn = (path: string) =>
  fail("referral_after_first_earn", "The customer has already earned points; a referral can no longer be recorded.", [
    { path, message: "comes after the customer's first earn" },
  ]);

// 410
export const linkInvalid = () =>
  fail("link_invalid", "This link is unknown, used already or expired: ask an owner of the program for a new one.");

// 413, 415, 429
export const payloadTooLarge = (maxBytes: number) =>
  fail("payload_too_large", `The body must be at most ${maxBytes} bytes.`);
export const unsupportedMediaType = () => fail("unsupported_media_type", "Send the body as application/json.");
export const rateLimited = (retryAfterSeconds: number) =>
  fail("rate_limited", "Too many requests; retry later.", undefined, { [RETRY_AFTER]: String(retryAfterSeconds) });

// 500, 503
export const internalError = () =>
  fail("internal", "Something went wrong on our side. Quote the requestId if you contact support.");
/** Seconds a client should wait before retrying while the database is unavailable: a restart or failover takes a few. */
export const DB_RETRY_AFTER_SECONDS = 2;
/** The database is unreachable or went away (lib/db/outage.ts): nothing was changed, or it is replayable by Idempotency-Key. */
export const serviceUnavailable = () =>
  fail(
    "service_unavailable",
    "The service is temporarily unavailable; retry shortly (POSTs with the same Idempotency-Key).",
    undefined,
    {
      [RETRY_AFTER]: String(DB_RETRY_AFTER_SECONDS),
    },
  );

/** /readyz: this instance should not get traffic yet (lib/ops/readiness.ts); `reason` names no host or secret. */
export const notReady = (reason: string) =>
  fail("service_unavailable", `The instance is not ready: ${reason}.`, undefined, {
    [RETRY_AFTER]: String(DB_RETRY_AFTER_SECONDS),
  });

/**
 * PostgreSQL unique_violation, however the driver adapter wrapped it. `constraint` is text that names the
 * violated constraint (from the driver's metadata or message), for callers to test with `includes`.
 */
export function uniqueViolation(err: unknown): { constraint: string } | null {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const e = current as Record<string, unknown>;
    if (
      e.code === "23505" ||
      e.code === "P2002" ||
      e.originalCode === "23505" ||
      e.kind === "UniqueConstraintViolation"
    ) {
      const text = [e.constraint, e.meta, e.originalMessage, e.message]
        .map((v) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v)))
        .join(" ");
      return { constraint: text };
    }
    current = e.cause ?? (e.meta as Record<string, unknown> | undefined)?.driverAdapterError;
  }
  return null;
}

/**
 * Runs `write`; a unique violation (whose constraint text includes `constraint`, when given) becomes
 * `onConflict()`, a 409 in the caller's words. Anything else is rethrown.
 */
export async function uniqueOr409<T>(write: () => Promise<T>, onConflict: () => AppError, constraint = ""): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (uniqueViolation(err)?.constraint.includes(constraint)) throw onConflict();
    throw err;
  }
}
