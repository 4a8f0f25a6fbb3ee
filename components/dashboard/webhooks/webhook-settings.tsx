"use client";

import { useState } from "react";
import { ROTATION_OVERLAP_HOURS } from "@/lib/domain/webhook-rotation";
import { useStaffForm } from "@/lib/staff/client";
import { WebhookRotation, WebhookSubscriptions } from "@/lib/staff/forms/webhooks";
import { staffApi } from "@/lib/staff/urls";
import { Field, ShownOnce, buttonClass, inputClass, secondaryButtonClass } from "@/components/ui";
import { EventTypeChoices } from "./event-type-choices";

/** A webhook's settings on the webhooks page (managers): the events it receives, and rotating its signing secret. */

const summaryClass =
  "cursor-pointer rounded text-sm text-indigo-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400";

export function WebhookSubscriptionsForm({
  programId,
  webhookId,
  url,
  eventTypes,
  version,
}: {
  programId: string;
  webhookId: string;
  url: string;
  eventTypes: string[];
  /** The webhook's version (If-Match). */
  version: string | Date;
}) {
  const save = useStaffForm<typeof WebhookSubscriptions, { eventTypes: string[] }>({
    schema: WebhookSubscriptions,
    method: "PUT",
    url: staffApi.webhookEvents(programId, webhookId),
    version,
    success: (data) => (data.eventTypes.length ? `Subscribed to ${data.eventTypes.length} event types` : "Every event"),
    // The boxes show the saved choice (keyed on it), so there is nothing to clear.
    clear: "never",
    read: (f) => ({ eventTypes: f.all("eventTypes") as WebhookSubscriptions["eventTypes"] }),
  });
  return (
    <details className="mt-2">
      <summary className={summaryClass}>
        Change events<span className="sr-only"> of {url}</span>
      </summary>
      <form {...save.form} aria-label={`Events sent to ${url}`} className="mt-2 space-y-2" key={eventTypes.join()}>
        <EventTypeChoices idPrefix={`events-${webhookId}`} selected={eventTypes} error={save.errors.eventTypes} />
        <button className={buttonClass} type="submit" disabled={save.pending}>
          Save events
        </button>
      </form>
    </details>
  );
}

const OVERLAPS = [
  { hours: 0, label: "Stop it now" },
  { hours: 1, label: "1 hour" },
  { hours: ROTATION_OVERLAP_HOURS.default, label: "24 hours" },
  { hours: ROTATION_OVERLAP_HOURS.max, label: "7 days" },
];

export function RotateSecretForm({ programId, webhookId, url }: { programId: string; webhookId: string; url: string }) {
  const [secret, setSecret] = useState<string | null>(null);
  const rotate = useStaffForm<typeof WebhookRotation, { secret: string }>({
    schema: WebhookRotation,
    method: "POST",
    url: staffApi.webhookSecret(programId, webhookId),
    success: "Signing secret rotated",
    clear: "never",
    onSuccess: (data) => setSecret(data.secret),
    read: (f) => ({ overlapHours: f.number("overlapHours") }),
  });
  const id = `overlap-${webhookId}`;
  return (
    <details className="mt-2">
      <summary className={summaryClass}>
        Rotate signing secret<span className="sr-only"> of {url}</span>
      </summary>
      <form {...rotate.form} aria-label={`Rotate the secret of ${url}`} className="mt-2 flex flex-wrap items-end gap-3">
        <div className="w-48">
          <Field label="Keep the old secret valid for" htmlFor={id} error={rotate.errors.overlapHours}>
            <select id={id} name="overlapHours" defaultValue={ROTATION_OVERLAP_HOURS.default} className={inputClass}>
              {OVERLAPS.map((o) => (
                <option key={o.hours} value={o.hours}>
                  {o.label}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <button className={secondaryButtonClass} type="submit" disabled={rotate.pending}>
          Rotate secret
        </button>
      </form>
      <p className="mt-1 text-xs text-slate-600">
        While the old secret is valid, each delivery carries two <code className="font-mono">v1=</code> signatures: one
        with the new secret, one with the old.
      </p>
      {secret && <ShownOnce what="signing secret" value={secret} testId={`rotated-secret-${webhookId}`} />}
    </details>
  );
}
