import "@/lib/zod-browser";
import { z } from "zod";
import { MAX_POINTS } from "@/lib/api/schemas/common";
import { isTimeZone } from "@/lib/domain/time-zones";
import { linkTemplateProblem } from "@/lib/domain/referral-rules";
import { allowedOriginsProblem } from "@/lib/domain/web-origins";
import { calendarDateProblem, EXPIRY_POLICIES, EXPIRY_ROUNDINGS } from "@/lib/domain/expiry-rules";

/** The program: its settings, its referral settings, a new program. */

const Months = z
  .number("must be a whole number of months")
  .int("must be a whole number of months")
  .min(1, "must be at least 1")
  .max(120, "must be at most 120");
const Ceiling = z
  .number("must be a whole number of points")
  .int("must be a whole number of points")
  .min(0, "must not be negative")
  .max(MAX_POINTS)
  .nullable();

/** Hours a redemption may be cancelled for (lib/domain/redemption-cancel.ts): 0 turns cancelling off; null: no limit. */
export const MAX_CANCEL_HOURS = 8760;
const CancelHours = z
  .number("must be a whole number of hours")
  .int("must be a whole number of hours")
  .min(0, "must not be negative")
  .max(MAX_CANCEL_HOURS, `must be at most ${MAX_CANCEL_HOURS} (a year)`)
  .nullable();

/**
 * The program settings page, with `loyalty program update`'s rules: name, points expiry (months; null: never),
 * tier period (months), the time zone reports count days in, the manual-adjustment ceilings per role (null: none), and
 * the hours a redemption may be cancelled for (0: never; null: at any time), and the web origins allowed to call /me.
 */
export const ProgramSettingsForm = z.strictObject({
  name: z.string().trim().min(1, "a name is required").max(255),
  pointsExpiryMonths: Months.nullable(),
  tierPeriodMonths: Months,
  timeZone: z.string().refine(isTimeZone, "must be an IANA time zone, e.g. Europe/Madrid"),
  adjustCeilingSupport: Ceiling,
  adjustCeilingManager: Ceiling,
  /** Left out: unchanged (clients that predate the setting). */
  redemptionCancelHours: CancelHours.optional(),
  /** The web origins whose pages may call the /me routes with a customer token (lib/domain/web-origins.ts). */
  allowedOrigins: z
    .array(z.string().max(255, "must be at most 255 characters"))
    .superRefine((values, ctx) => {
      const problem = allowedOriginsProblem(values);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
});
export type ProgramSettingsForm = z.infer<typeof ProgramSettingsForm>;
/** What the settings route takes: any of the settings; the dashboard's form sends only those it changed. */
export const ProgramSettingsPatch = ProgramSettingsForm.partial();
export type ProgramSettingsPatch = z.infer<typeof ProgramSettingsPatch>;

/** Whole points, from 0 (none) up to MAX_POINTS, for the referral settings. */
const ReferralPoints = (min: number) =>
  z
    .number("must be a whole number of points")
    .int("must be a whole number of points")
    .min(min, `must be at least ${min}`)
    .max(MAX_POINTS);

/**
 * The settings page's "Referrals" card and `loyalty referral settings` (lib/domain/referrals.ts): the link template
 * (an http(s) URL holding {code}; null: no links), each side's points, the qualifying earn's minimum points, and the
 * cap of rewarded referrals per referrer in a period (count null: no cap).
 */
export const ReferralSettingsForm = z.strictObject({
  referralLinkTemplate: z
    .string()
    .trim()
    .max(255, "must be at most 255 characters")
    .superRefine((value, ctx) => {
      const problem = linkTemplateProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .nullable(),
  referralReferrerPoints: ReferralPoints(0),
  referralReferredPoints: ReferralPoints(0),
  referralMinEarnPoints: ReferralPoints(1),
  referralCapCount: z
    .number("must be a whole number")
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(1_000_000)
    .nullable(),
  referralCapDays: z
    .number("must be a whole number of days")
    .int("must be a whole number of days")
    .min(1, "must be at least 1")
    .max(3650, "must be at most 3650"),
});
export type ReferralSettingsForm = z.infer<typeof ReferralSettingsForm>;
/** What the referral settings route takes: any of them; the dashboard's form sends only those it changed. */
export const ReferralSettingsPatch = ReferralSettingsForm.partial();
export type ReferralSettingsPatch = z.infer<typeof ReferralSettingsPatch>;

/** A new program: its name (the rest starts at the defaults and is set on its settings page). */
export const NewProgramForm = z.strictObject({ name: z.string().trim().min(1, "a name is required").max(255) });
export type NewProgramForm = z.infer<typeof NewProgramForm>;

const Days = (max: number) =>
  z
    .number("must be a whole number of days")
    .int("must be a whole number of days")
    .min(1, "must be at least 1")
    .max(max, `must be at most ${max}`);

/**
 * The settings page's "Points: pending and expiry" card and `loyalty program points-policy`
 * (lib/domain/points-policy.ts): pending points, and the expiry policy with its parameters (the rolling months stay
 * in the program settings). A change applies to points earned after it.
 */
export const PointsPolicyForm = z
  .strictObject({
    pendingDays: z
      .number("must be a whole number of days")
      .int("must be a whole number of days")
      .min(0, "must not be negative")
      .max(365, "must be at most 365"),
    pendingUntilConfirmed: z.boolean(),
    pendingCountsForTier: z.boolean(),
    expiryPolicy: z.enum(EXPIRY_POLICIES),
    expiryRounding: z.enum(EXPIRY_ROUNDINGS),
    expiryCalendarDate: z
      .string()
      .trim()
      .superRefine((value, ctx) => {
        const problem = calendarDateProblem(value);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .nullable(),
    expiryCalendarYears: z
      .number("must be a whole number of years")
      .int("must be a whole number of years")
      .min(1, "must be at least 1")
      .max(10, "must be at most 10"),
    expiryInactivityDays: Days(3650).nullable(),
    expiryWarningDays: Days(365).nullable(),
  })
  .superRefine((v, ctx) => {
    if (v.expiryPolicy === "calendar" && v.expiryCalendarDate === null)
      ctx.addIssue({
        code: "custom",
        path: ["expiryCalendarDate"],
        message: "a calendar policy needs its date, MM-DD",
      });
    if (v.expiryPolicy === "inactivity" && v.expiryInactivityDays === null)
      ctx.addIssue({ code: "custom", path: ["expiryInactivityDays"], message: "an inactivity policy needs its days" });
  });
export type PointsPolicyForm = z.infer<typeof PointsPolicyForm>;
