/**
 * Checks of the /v1 conventions (API.md §1) shared by the HTTP tests. Written from the contract, independently
 * of the app's own schemas.
 */
import assert from "node:assert/strict";
import type { ApiResponse } from "./api-client";

/** ISO 8601 UTC with milliseconds: `2026-11-22T15:31:33.000Z`. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const PROBLEM_KEYS = ["type", "title", "status", "detail", "code", "requestId"];

/** Text that would betray internals in an error body: stack frames, source files, SQL, driver messages. */
const LEAK =
  /\bat \S+ \([^)]*:\d+:\d+\)|node_modules|\.tsx?:\d+|\.js:\d+|prisma|postgres|pglite|violates|duplicate key/i;
const LEAK_SQL = /\b(SELECT|INSERT|UPDATE|DELETE|FROM|WHERE)\b/;

export function assertRequestId(res: ApiResponse): string {
  const id = res.headers.get("x-request-id");
  assert.ok(id && id.length > 0, `x-request-id missing (status ${res.status})`);
  return id;
}

/**
 * The rate-limit headers of an authenticated answer (API.md §1, draft-ietf-httpapi-ratelimit-headers): the policy
 * `"default";q=<burst>;w=<seconds to refill>`, the state `"default";r=<remaining>;t=<seconds to full>`, and the
 * legacy RateLimit-Limit/Remaining/Reset saying the same numbers, with Remaining ≤ Limit. Returns Remaining.
 */
export function assertRateHeaders(res: ApiResponse, burst: number, windowSeconds: number): number {
  const h = (name: string) => res.headers.get(name) ?? "";
  assert.equal(h("ratelimit-policy"), `"default";q=${burst};w=${windowSeconds}`);
  const state = /^"default";r=(\d+);t=(\d+)$/.exec(h("ratelimit"));
  assert.ok(state, `RateLimit: ${h("ratelimit")}`);
  const [remaining, reset] = [Number(state[1]), Number(state[2])];
  assert.equal(h("ratelimit-limit"), String(burst));
  assert.equal(h("ratelimit-remaining"), String(remaining));
  assert.equal(h("ratelimit-reset"), String(reset));
  assert.ok(remaining <= burst, `Remaining ${remaining} exceeds Limit ${burst}`);
  return remaining;
}

/** An RFC 9457 problem with the given status and code, in the shape API.md §1 fixes. Returns its body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function assertProblem(res: ApiResponse, status: number, code: string): any {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${res.text}`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/problem\+json\b/);
  const body = res.json;
  assert.ok(body && typeof body === "object" && !Array.isArray(body), `problem body is not a JSON object: ${res.text}`);
  for (const key of PROBLEM_KEYS) assert.ok(key in body, `problem lacks "${key}": ${res.text}`);
  assert.deepEqual(
    Object.keys(body).filter((k) => !PROBLEM_KEYS.includes(k) && k !== "errors"),
    [],
    "problem has no other members",
  );
  assert.equal(typeof body.type, "string");
  assert.equal(typeof body.title, "string");
  assert.ok(body.title.length > 0);
  assert.equal(typeof body.detail, "string");
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.match(body.code, /^[a-z]+(_[a-z]+)*$/, "code is snake_case");
  assert.equal(body.requestId, assertRequestId(res), "requestId is the x-request-id header");
  if ("errors" in body) {
    assert.ok(Array.isArray(body.errors) && body.errors.length > 0, "errors, when present, is a non-empty array");
    for (const e of body.errors) {
      assert.deepEqual(Object.keys(e).sort(), ["message", "path"]);
      assert.equal(typeof e.path, "string");
      assert.equal(typeof e.message, "string");
    }
  }
  assert.doesNotMatch(res.text, LEAK, "a problem never leaks internals");
  assert.doesNotMatch(res.text, LEAK_SQL, "a problem never leaks SQL");
  return body;
}

/** The `errors[].path` values of a problem, sorted. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const problemPaths = (body: any): string[] =>
  ((body.errors ?? []) as { path: string }[]).map((e) => e.path).sort();

// The resources of spec §2, field by field.
export const CUSTOMER_FIELDS = [
  "id",
  "programId",
  "email",
  "origin",
  "referral",
  "utmCampaign",
  "utmSource",
  "utmMedium",
  "language",
  "balanceNotifications",
  "tierNotifications",
  "rewardAvailableNotifications",
  "locationNotifications",
  "marketingNotifications",
  "referralEarned",
  "createdAt",
  "updatedAt",
  "userData",
  "loyaltyData",
  "customerTier",
  // Beyond the spec: the values of the program's declared customer attributes, under one object (API.md §3).
  "customAttributes",
];
export const USER_DATA_FIELDS = [
  "id",
  "customerId",
  "externalCustomerId",
  "firstName",
  "lastName",
  "phone",
  "birthdate",
  "emailVerified",
  "createdAt",
  "updatedAt",
];
export const LOYALTY_DATA_FIELDS = [
  "id",
  "customerId",
  "loyaltyCustomerId",
  "balance",
  "pendingPoints",
  "pending",
  "memberSince",
  "tierStatus",
  "referralLink",
  "createdAt",
  "updatedAt",
];
export const CUSTOMER_TIER_FIELDS = [
  "id",
  "customerId",
  "currentTierId",
  "carryTierId",
  "currentTierPoints",
  "carryTierPoints",
  "tierChangedAt",
  "recalculationDate",
  "currentTier",
  "carryTier",
];
export const TIER_FIELDS = [
  "id",
  "programId",
  "name",
  "content",
  "image",
  "requiredPoints",
  "factor",
  "createdAt",
  "updatedAt",
];

type Kind = "string" | "boolean" | "number" | "timestamp" | "object" | "array";

/** Exactly `fields` (none missing, none extra), each of its kind or null where `nullable` allows. */
function assertObject(what: string, value: unknown, fields: string[], kinds: Record<string, Kind>, nullable: string[]) {
  assert.ok(value && typeof value === "object" && !Array.isArray(value), `${what} is an object`);
  const obj = value as Record<string, unknown>;
  assert.deepEqual(Object.keys(obj).sort(), [...fields].sort(), `${what} has exactly the spec's fields`);
  for (const field of fields) {
    const v = obj[field];
    assert.notEqual(v, undefined, `${what}.${field} is present`);
    if (v === null) {
      assert.ok(nullable.includes(field), `${what}.${field} must not be null`);
      continue;
    }
    const kind = kinds[field] ?? "string";
    if (kind === "timestamp") assert.match(String(v), ISO_MS, `${what}.${field} is an ISO timestamp with milliseconds`);
    if (kind === "timestamp" || kind === "string") assert.equal(typeof v, "string", `${what}.${field} is a string`);
    if (kind === "boolean") assert.equal(typeof v, "boolean", `${what}.${field} is a boolean`);
    if (kind === "number") assert.ok(typeof v === "number" && Number.isFinite(v), `${what}.${field} is a number`);
    if (kind === "array") assert.ok(Array.isArray(v), `${what}.${field} is an array`);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function assertTier(what: string, tier: any) {
  assertObject(
    what,
    tier,
    TIER_FIELDS,
    { requiredPoints: "number", factor: "number", createdAt: "timestamp", updatedAt: "timestamp" },
    ["content", "image"],
  );
}

/** A Customer of spec §2.1 with every nested object, every field present (null when it has no value). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function assertCustomerShape(c: any) {
  const bools = [
    "balanceNotifications",
    "tierNotifications",
    "rewardAvailableNotifications",
    "locationNotifications",
    "marketingNotifications",
    "referralEarned",
  ];
  assertObject(
    "customer",
    c,
    CUSTOMER_FIELDS,
    {
      ...Object.fromEntries(bools.map((b) => [b, "boolean" as const])),
      createdAt: "timestamp",
      updatedAt: "timestamp",
      userData: "object",
      loyaltyData: "object",
      customerTier: "object",
      customAttributes: "object",
    },
    ["referral", "utmCampaign", "utmSource", "utmMedium", "language"],
  );
  assertObject(
    "userData",
    c.userData,
    USER_DATA_FIELDS,
    { emailVerified: "boolean", createdAt: "timestamp", updatedAt: "timestamp" },
    ["externalCustomerId", "firstName", "lastName", "phone", "birthdate"],
  );
  assertObject(
    "loyaltyData",
    c.loyaltyData,
    LOYALTY_DATA_FIELDS,
    {
      balance: "number",
      pendingPoints: "number",
      pending: "array",
      memberSince: "timestamp",
      createdAt: "timestamp",
      updatedAt: "timestamp",
    },
    ["referralLink"],
  );
  assertObject(
    "customerTier",
    c.customerTier,
    CUSTOMER_TIER_FIELDS,
    {
      currentTierPoints: "number",
      carryTierPoints: "number",
      tierChangedAt: "timestamp",
      recalculationDate: "timestamp",
      currentTier: "object",
      carryTier: "object",
    },
    ["currentTierId", "carryTierId", "tierChangedAt", "recalculationDate", "currentTier", "carryTier"],
  );
  assert.equal(c.userData.customerId, c.id);
  assert.equal(c.loyaltyData.customerId, c.id);
  assert.equal(c.customerTier.customerId, c.id);
  for (const which of ["currentTier", "carryTier"] as const) {
    const tier = c.customerTier[which];
    const id = c.customerTier[`${which}Id`];
    if (tier === null) {
      assert.equal(id, null, `${which}Id is null when ${which} is`);
    } else {
      assertTier(`customerTier.${which}`, tier);
      assert.equal(tier.id, id, `${which}.id is ${which}Id`);
      assert.equal(tier.programId, c.programId, `${which} belongs to the customer's program`);
    }
  }
}
