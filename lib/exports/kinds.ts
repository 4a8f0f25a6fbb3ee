import { z } from "zod";
import { MAX_ACCOUNTING_DAYS } from "@/lib/domain/accounting-limits";
import { FIRST_DAY, LAST_DAY } from "@/lib/staff/report-range";

/**
 * The one list of CSV exports and the filters each takes, shared by the dashboard's export route, its buttons and
 * the CLI (`npm run loyalty -- export <kind>`). Dates are days (YYYY-MM-DD) in the program's time zone, both ends
 * included. Client-safe: zod and constants only.
 */

export const EXPORT_KINDS = [
  "customers",
  "ledger",
  "redemptions",
  "coupon-codes",
  "audit-log",
  "segment-members",
  "points-accounting",
] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

const Day = z.iso
  .date({ error: "must be a date (YYYY-MM-DD)" })
  .refine((d) => d >= FIRST_DAY && d <= LAST_DAY, { error: "must be a date in the years 1970 to 2100" });
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" || v === null ? undefined : v), schema.optional());

/** `from` ≤ `to`, when both are given. */
const DayRange = z
  .strictObject({ from: optional(Day), to: optional(Day) })
  .refine((r) => !r.from || !r.to || r.from <= r.to, { path: ["to"], message: "must not be before from" });

/** What each export's query string may hold. */
export const EXPORT_FILTERS = {
  /** The customers list's filter (lib/staff/queries/customers/search.ts `searchCustomers`): its search text and tier. */
  customers: z.strictObject({
    q: optional(z.string().max(320, { error: "must be at most 320 characters" })),
    tier: optional(z.uuid({ error: "must be a tier id" })),
  }),
  ledger: DayRange,
  redemptions: DayRange,
  "coupon-codes": z.strictObject({ pool: z.uuid({ error: "must be a coupon pool id" }) }),
  "audit-log": z
    .strictObject({
      from: optional(Day),
      to: optional(Day),
      action: optional(z.string().max(64)),
      staff: optional(z.string().max(320)),
      /** The kind of entity (`customer`, `tier`, …) and its id: one entity's history. */
      type: optional(z.string().max(64)),
      entity: optional(z.string().max(200)),
    })
    .refine((r) => !r.from || !r.to || r.from <= r.to, { path: ["to"], message: "must not be before from" }),
  /** A segment's members now (API.md "Segments"). */
  "segment-members": z.strictObject({ segment: z.uuid({ error: "must be a segment id" }) }),
  /** The Finance page's days (lib/domain/accounting.ts): both ends required, at most MAX_ACCOUNTING_DAYS. */
  "points-accounting": z
    .strictObject({ from: Day, to: Day })
    .refine((r) => r.from <= r.to, { path: ["to"], message: "must not be before from" })
    .refine((r) => (Date.parse(r.to) - Date.parse(r.from)) / 86_400_000 < MAX_ACCOUNTING_DAYS, {
      path: ["to"],
      message: `must be at most ${MAX_ACCOUNTING_DAYS} days after from`,
    }),
} as const satisfies Record<ExportKind, z.ZodType>;

export type ExportFilter<K extends ExportKind> = z.infer<(typeof EXPORT_FILTERS)[K]>;

/** How the dashboard names each export. */
export const EXPORT_LABELS: Record<ExportKind, string> = {
  customers: "customers",
  ledger: "points ledger",
  redemptions: "redemptions",
  "coupon-codes": "coupon codes",
  "audit-log": "audit log",
  "segment-members": "segment members",
  "points-accounting": "days of points accounting",
};

/** The response header carrying the number of rows the export is expected to hold (counted before streaming). */
export const EXPORT_ROWS_HEADER = "x-export-rows";
