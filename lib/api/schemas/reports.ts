import { z } from "zod";
import { MAX_ACCOUNTING_DAYS } from "@/lib/domain/accounting-limits";

/** The points accounting report (lib/domain/accounting.ts): its query and its answer. */

const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a day, YYYY-MM-DD")
  .refine((d) => {
    const t = Date.parse(`${d}T00:00:00Z`);
    return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === d && d >= "1970-01-01" && d <= "2100-12-31";
  }, "must be a calendar day from 1970-01-01 to 2100-12-31");

export const PointsAccountingQuery = z
  .strictObject({
    from: Day.describe("The first day, in the program's time zone."),
    to: Day.describe("The last day (included), in the program's time zone."),
  })
  .superRefine((q, ctx) => {
    if (q.from > q.to) ctx.addIssue({ code: "custom", path: ["to"], message: "must not be before from" });
    else if (
      (Date.parse(`${q.to}T00:00:00Z`) - Date.parse(`${q.from}T00:00:00Z`)) / 86_400_000 + 1 >
      MAX_ACCOUNTING_DAYS
    )
      ctx.addIssue({ code: "custom", path: ["to"], message: `must be at most ${MAX_ACCOUNTING_DAYS} days after from` });
  });

const Points = z.number().int();
const Money = z
  .string()
  .regex(/^-?\d+\.\d{2,6}$/)
  .describe("An exact decimal amount in the program's currency.");

const flows = {
  openingOutstanding: "Outstanding (spendable, not erased) points at the start of the day.",
  earned: "Points earned (spendable).",
  pendingCreated: "Pending points created (not spendable yet).",
  pendingMatured: "Pending points that became spendable.",
  pendingCancelled: "Pending points cancelled before they matured.",
  reversed: "Earned points taken back by reversals and refunds.",
  redeemed: "Points redeemed for rewards or spent.",
  redemptionsCancelled: "Points given back by cancelled redemptions and reversed spends.",
  expired: "Points expired.",
  adjusted: "Manual adjustments, signed, including the balances written off by erasures (`erased`).",
  closingOutstanding: "Outstanding points at the end of the day.",
  erased: "Part of `adjusted`: balances written off when their customers were erased.",
  pendingOutstanding: "Pending points at the end of the day.",
} as const;
type Flow = keyof typeof flows;
const keys = Object.keys(flows) as Flow[];

const Amounts = Object.fromEntries(keys.map((k) => [k, Points.describe(flows[k])])) as Record<Flow, typeof Points>;
const MoneyAmounts = z
  .object(Object.fromEntries(keys.map((k) => [k, Money])) as Record<Flow, typeof Money>)
  .nullable()
  .describe("The same amounts in money (points × the value per point), or null when the program has no value set.");

const AccountingRow = {
  ...Amounts,
  breakage: z
    .number()
    .nullable()
    .describe("Points expired ÷ points earned over the 365 days ending this day; null when none were earned."),
  money: MoneyAmounts,
};

export const PointsAccounting = z
  .object({
    from: z.string(),
    to: z.string(),
    timeZone: z.string().describe("The program's time zone, the days' zone."),
    currency: z.string().nullable().describe("ISO 4217 code of the money amounts, or null."),
    pointValue: z.string().nullable().describe("The money value of one point (decimal), or null when not set."),
    rolledUpThrough: z
      .string()
      .nullable()
      .describe("The last day read from the daily aggregates; the days after it were computed from the ledger."),
    days: z
      .array(z.object({ day: z.string(), ...AccountingRow }))
      .describe("Every day from `from` to `to`, oldest first."),
    totals: z
      .object(AccountingRow)
      .describe(
        "The period: opening of its first day, closing of its last, the flows summed, breakage of its last day.",
      ),
  })
  .meta({ id: "PointsAccounting" });
