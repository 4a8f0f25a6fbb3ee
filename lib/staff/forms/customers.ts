import "@/lib/zod-browser";
import { z } from "zod";
import { UserPayload } from "@/lib/api/schemas/customers";

/** A customer's details, internal notes and preferences, as support edits them on the customer page. */

/** The API's user payload (names, phone, external id, e-mail verified, new e-mail) plus the birthdate. */
export const UserDataEdit = UserPayload.extend({
  birthdate: z.iso.date("must be a date (YYYY-MM-DD)").nullable().optional(),
});
export type UserDataEdit = z.infer<typeof UserDataEdit>;

/** A staff member's internal note on a customer (never shown to the customer). */
export const NoteForm = z.strictObject({
  body: z.string().trim().min(1, "write the note").max(4000, "must be at most 4,000 characters"),
});
export type NoteForm = z.infer<typeof NoteForm>;

/** The customer's notification flags and language, as support changes them; at least one. */
export const PreferencesForm = z
  .strictObject({
    language: z
      .string()
      .trim()
      .max(35)
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, "must be a language tag such as en or pt-BR")
      .nullable()
      .optional(),
    balanceNotifications: z.boolean().optional(),
    tierNotifications: z.boolean().optional(),
    rewardAvailableNotifications: z.boolean().optional(),
    locationNotifications: z.boolean().optional(),
    marketingNotifications: z.boolean().optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), "nothing to change");
export type PreferencesForm = z.infer<typeof PreferencesForm>;

/** What the customer page's timeline can be narrowed to. */
export const TIMELINE_KINDS = ["points", "staff", "redemption", "coupon", "notification", "note"] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];
