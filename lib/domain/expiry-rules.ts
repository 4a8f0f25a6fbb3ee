/**
 * The expiry rules of points (API.md §4 "Expiry"), each written once and used by every path: the ledger write that
 * stamps a new lot, the spend's and the redemption's check for points due to expire, the expiry of due lots (the
 * scheduled job, a test program's clock advance, before a spend), the warning `points.expiring`, the cancel of a
 * redemption whose lots expired since, and the balance explanation. SQL text only (the rules run inside statements);
 * no time is read here: every caller binds its program-clock `now`.
 *
 * - A lot's fixed expiry is computed when it is made, by the SQL function `loyalty_lot_expiry` (migration
 *   20261126053500_pending_points_expiry) from the program's policy at that moment: a policy change applies to lots
 *   earned after it.
 * - A lot earned under `inactivity` has no fixed expiry but `idleDays`: it expires idleDays days after the customer's
 *   last earn, spend or redemption (`LoyaltyData.lastActivityAt`; the lot's own creation when there was none).
 */

/** The policies (`Program.expiryPolicy`) and the roundings of `rolling` (`Program.expiryRounding`). */
export const EXPIRY_POLICIES = ["rolling", "calendar", "inactivity", "none"] as const;
export type ExpiryPolicy = (typeof EXPIRY_POLICIES)[number];
export const EXPIRY_ROUNDINGS = ["none", "month", "quarter", "year"] as const;
export type ExpiryRounding = (typeof EXPIRY_ROUNDINGS)[number];

/** A calendar expiry date, "MM-DD", that exists every year (no 29 February). */
export const CALENDAR_DATE = /^(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/;
export function calendarDateProblem(value: string): string | null {
  const m = CALENDAR_DATE.exec(value);
  if (!m) return 'must be a date "MM-DD"';
  const days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][Number(m[1]) - 1]!;
  return Number(m[2]) <= days ? null : "must be a day every year has (no 29 February)";
}

/**
 * The fixed expiry of a lot made at `at` (SQL expression) under the program row `program` (alias with the expiry
 * columns and `timeZone`): NULL when it never expires or expires on inactivity.
 */
export const stampedExpirySql = (program: string, at: string) =>
  `loyalty_lot_expiry(${at}, ${program}."expiryPolicy", ${program}."pointsExpiryMonths", ${program}."expiryRounding", ` +
  `${program}."expiryCalendarDate", ${program}."expiryCalendarYears", ${program}."timeZone")`;

/** The `idleDays` of a lot made under the program row `program`: its inactivity days, or NULL. */
export const idleDaysSql = (program: string) =>
  `CASE WHEN ${program}."expiryPolicy" = 'inactivity' THEN ${program}."expiryInactivityDays" END`;

/**
 * When the lot `lot` (alias of a "PointLot") expires: its fixed expiry, or, for a lot earned under `inactivity`, the
 * customer's last activity (`lastActivity`: an SQL expression; by default read from the lot's LoyaltyData) plus its
 * idle days. NULL: never.
 */
export const lotExpirySql = (lot: string, lastActivity?: string) =>
  `coalesce(${lot}."expiresAt", coalesce(${
    lastActivity ?? `(SELECT la."lastActivityAt" FROM "LoyaltyData" la WHERE la."customerId" = ${lot}."customerId")`
  }, ${lot}."createdAt") + make_interval(days => ${lot}."idleDays"))`;

/** Whether the lot `lot` holds points that have expired by `at` (SQL expression). */
export const lotDueSql = (lot: string, at: string, lastActivity?: string) =>
  `(${lot}.remaining > 0 AND ${lotExpirySql(lot, lastActivity)} <= ${at})`;

/** The ledger entry types that count as the customer's activity for the `inactivity` policy. */
export const ACTIVITY_TYPES = ["earn", "spend", "redeem"] as const;

/** The policy in words, for the dashboard and the CLI (client-safe). */
export function describeExpiry(p: {
  expiryPolicy: ExpiryPolicy;
  pointsExpiryMonths: number | null;
  expiryRounding: ExpiryRounding;
  expiryCalendarDate: string | null;
  expiryCalendarYears: number;
  expiryInactivityDays: number | null;
}): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  switch (p.expiryPolicy) {
    case "none":
      return "never";
    case "rolling":
      if (p.pointsExpiryMonths === null) return "never (rolling, no months set)";
      return `${plural(p.pointsExpiryMonths, "month")} after earning${
        p.expiryRounding === "none" ? "" : `, rounded up to the end of the ${p.expiryRounding}`
      }`;
    case "calendar":
      return `points earned in a year expire on ${p.expiryCalendarDate ?? "?"} ${
        p.expiryCalendarYears === 1 ? "of the next year" : `${p.expiryCalendarYears} years later`
      }`;
    case "inactivity":
      return `the whole balance after ${plural(p.expiryInactivityDays ?? 0, "day")} with no earn and no spend`;
  }
}
