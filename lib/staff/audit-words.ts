/**
 * The one place that puts an audit row into words for people (the audit page): a sentence saying who did what
 * to which entity, the diff of the keys that changed (before → after), and the page the entity lives on.
 * Secrets never show: a value under a secret-looking key is replaced, and a URL loses its password, even though
 * the writers (lib/staff/audit.ts `audited`) are told never to record them — this is the second lock.
 * Client-safe: no imports beyond the URL table.
 */
import { dashboardPages } from "./urls";

export interface AuditRowLike {
  action: string;
  staffEmail: string;
  entityType: string;
  entityId: string | null;
  before: unknown;
  after: unknown;
}

/** One changed key: its value before and after, as display text ("—" for absent). */
export interface AuditChange {
  key: string;
  before: string;
  after: string;
}

/** What replaces a secret's value in the diff. */
export const HIDDEN = "(hidden)";
const ABSENT = "—";

const SECRET_KEY = /secret|password|passwd|token|hash|credential|recovery|totp|cookie|authorization|apikey/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A secret-looking key whose value is text that is not a date (`previousSecretValidUntil` stays shown). */
const isSecret = (key: string, value: unknown) =>
  SECRET_KEY.test(key) && typeof value === "string" && !ISO_TIME.test(value);

/** A value with every secret inside replaced and URLs without their password. */
function redact(value: unknown, key = ""): unknown {
  if (isSecret(key, value)) return HIDDEN;
  if (typeof value === "string") return value.replace(/(\/\/[^/:@\s]*):[^/@\s]*@/g, `$1:${HIDDEN}@`);
  if (Array.isArray(value)) return value.map((v) => redact(v, key));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, k)]));
  return value;
}

const shown = (value: unknown) =>
  value === undefined || value === null ? ABSENT : typeof value === "string" ? value : JSON.stringify(value);

const asRecord = (value: unknown): Record<string, unknown> | null =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/**
 * The keys whose value differs between `before` and `after` (top level; a nested value is compared and shown as
 * JSON), in `after`'s order. When both are objects only `after`'s keys are judged: a key only in `before` is context
 * the writer recorded (a name beside changed limits), not a removal. A creation (no before) or a deletion (no
 * after) lists every key; a snapshot that is not an object counts as one key, "value".
 */
export function auditDiff(before: unknown, after: unknown): AuditChange[] {
  const b = asRecord(before) ?? (before == null ? {} : { value: before });
  const a = asRecord(after) ?? (after == null ? {} : { value: after });
  const keys = after == null ? Object.keys(b) : Object.keys(a);
  return keys
    .filter((k) => JSON.stringify(b[k] ?? null) !== JSON.stringify(a[k] ?? null))
    .map((key) => ({ key, before: shown(redact(b[key], key)), after: shown(redact(a[key], key)) }));
}

/** How each kind of entity is named in a sentence (also the audit page's entity-type choices). */
export const ENTITY_WORDS: Record<string, string> = {
  customer: "customer",
  tier: "tier",
  reward: "reward",
  coupon_pool: "coupon pool",
  earning_flow: "earning flow",
  event_type: "event type",
  campaign: "campaign",
  program: "the program",
  api_key: "API key",
  webhook: "webhook",
  delivery: "webhook delivery",
  staff: "staff member",
  staff_account: "staff account",
  export: "export",
};

/** The verb of each action's last part ("customer.update" → "changed"); unknown ones read as their words. */
const VERBS: Record<string, string> = {
  create: "created",
  update: "changed",
  delete: "deleted",
  remove: "removed",
  preferences: "changed the preferences of",
  note: "added a note to",
  adjust: "adjusted the balance of",
  reverse: "reversed an entry of",
  redeem: "redeemed a reward for",
  cancel: "cancelled a redemption of",
  assign: "assigned a coupon to",
  send: "sent a notification to",
  revoke: "revoked",
  import: "imported codes into",
  deactivate: "switched off",
  activate: "switched on",
  pause: "paused",
  resume: "resumed",
  end: "ended",
  referrals_update: "changed the referral settings of",
  advance: "advanced the clock of",
  subscriptions: "changed the event types of",
  rotate_secret: "rotated the signing secret of",
  test: "sent a test event to",
  set: "set the push endpoint of",
  resend: "resent",
  role: "changed the role of",
  disable: "disabled",
  enable: "enabled",
  unlock: "unlocked",
  export: "exported",
  signin_failed: "failed to sign in to",
  signin_locked: "was locked out of",
};

/** The entity's name as the row knows it: a name, e-mail or key from its snapshot, else a short id. */
function entityName(row: AuditRowLike): string {
  const snap = { ...asRecord(row.before), ...asRecord(row.after) };
  for (const k of ["name", "email", "key", "title", "url", "kind"]) {
    const v = snap[k];
    if (typeof v === "string" && v && !isSecret(k, v)) return `“${shown(redact(v, k))}”`;
  }
  return row.entityId ? row.entityId.slice(0, 8) : "";
}

/** One sentence: "support@example.com changed customer “ada@example.com”: phone, firstName". */
export function describeAudit(row: AuditRowLike): string {
  const part = row.action.slice(row.action.indexOf(".") + 1);
  const verb = VERBS[part] ?? part.replaceAll("_", " ");
  const entity = ENTITY_WORDS[row.entityType] ?? row.entityType.replaceAll("_", " ");
  const name = row.entityType === "program" ? "" : entityName(row);
  const changed = row.before != null && row.after != null ? auditDiff(row.before, row.after).map((c) => c.key) : [];
  const what = [entity, name].filter(Boolean).join(" ");
  return `${row.staffEmail} ${verb} ${what}${changed.length > 0 ? `: ${changed.join(", ")}` : ""}`;
}

/** The dashboard page of the entity, or null when it has none (an export, a sign-in). */
export function auditEntityHref(programId: string, entityType: string, entityId: string | null): string | null {
  const page = `/dashboard/${programId}`;
  switch (entityType) {
    case "customer":
      return entityId ? dashboardPages.customer(programId, entityId) : null;
    case "coupon_pool":
      return entityId ? dashboardPages.couponPool(programId, entityId) : `${page}/coupons`;
    case "campaign":
      return entityId ? dashboardPages.campaign(programId, entityId) : dashboardPages.campaigns(programId);
    case "delivery":
      return entityId ? dashboardPages.delivery(programId, entityId) : dashboardPages.webhooks(programId);
    case "tier":
      return `${page}/tiers`;
    case "reward":
      return `${page}/rewards`;
    case "earning_flow":
      return `${page}/earning-flows`;
    case "event_type":
      return dashboardPages.campaigns(programId);
    case "webhook":
      return dashboardPages.webhooks(programId);
    case "api_key":
      return `${page}/api-keys`;
    case "staff":
    case "staff_account":
      return `${page}/staff`;
    case "program":
      return dashboardPages.settings(programId);
    default:
      return null;
  }
}
