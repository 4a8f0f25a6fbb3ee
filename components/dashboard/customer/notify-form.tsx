"use client";

import { useStaffForm } from "@/lib/staff/client";
import { NotificationForm } from "@/lib/staff/forms/notifications";
import { staffApi } from "@/lib/staff/urls";
import { Field, InputField, inputClass, secondaryButtonClass } from "@/components/ui";
import { customerQueries } from "./profile";

const CATEGORY_LABELS = {
  balance: "Balance",
  tier: "Tier",
  rewardAvailable: "Reward available",
  location: "Location",
  marketing: "Marketing",
} as const;

/** Sends the customer a push notification; suppressed (and said so) when the customer turned its category off. */
export function NotifyForm({ programId, customerId }: { programId: string; customerId: string }) {
  const notify = useStaffForm<typeof NotificationForm, { notification: { status: string } }>({
    schema: NotificationForm,
    method: "POST",
    url: staffApi.notifications(programId, customerId),
    success: (data) =>
      data.notification.status === "suppressed"
        ? "Not sent: the customer turned this category off"
        : "Notification queued",
    invalidate: customerQueries(customerId),
    read: (f) => ({
      title: f.text("title"),
      body: f.text("body"),
      category: f.text("category") as keyof typeof CATEGORY_LABELS,
    }),
  });
  return (
    <form {...notify.form} className="grid gap-2 sm:grid-cols-2" aria-label="Send a notification" noValidate>
      <h3 className="text-sm font-semibold text-slate-900 sm:col-span-2">Send a push notification</h3>
      <InputField
        label="Title"
        error={notify.errors.title}
        id="n-title"
        name="title"
        maxLength={120}
        aria-invalid={!!notify.errors.title}
      />
      <Field label="Category" htmlFor="n-category">
        <select id="n-category" name="category" className={inputClass}>
          {Object.entries(CATEGORY_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <div className="sm:col-span-2">
        <Field label="Message" htmlFor="n-body" error={notify.errors.body}>
          <textarea
            id="n-body"
            name="body"
            rows={2}
            maxLength={1000}
            className={inputClass}
            aria-invalid={!!notify.errors.body}
          />
        </Field>
      </div>
      <div>
        <button className={secondaryButtonClass} disabled={notify.pending} type="submit">
          Send
        </button>
      </div>
    </form>
  );
}
