import "@/lib/zod-browser";
import { z } from "zod";
import { LanguageTag, UserPayload } from "@/lib/api/schemas/customers";

/** A customer's details, internal notes and preferences, as support edits them on the customer page. */

/** The API's user payload (names, phone, birthdate, external id, e-mail verified, new e-mail, language, UTM fields). */
export const UserDataEdit = UserPayload;
export type UserDataEdit = z.infer<typeof UserDataEdit>;

/** A staff member's internal note on a customer (never shown to the customer). */
export const NoteForm = z.strictObject({
  body: z.string().trim().min(1, "write the note").max(4000, "must be at most 4,000 characters"),
});
export type NoteForm = z.infer<typeof NoteForm>;

/** The customer's notification flags and language, as support changes them; at least one. */
export const PreferencesForm = z
  .strictObject({
    language: LanguageTag.nullable().optional(),
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
