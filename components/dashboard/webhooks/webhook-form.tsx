"use client";

import { useState } from "react";
import { useStaffForm } from "@/lib/staff/client";
import { WebhookForm as WebhookSchema, type WebhookForm as WebhookInput } from "@/lib/staff/forms/webhooks";
import { staffApi } from "@/lib/staff/urls";
import { InputField, ShownOnce } from "@/components/ui";
import { CardForm } from "../card-form";
import { EventTypeChoices } from "./event-type-choices";

/** The webhooks page's "New webhook" card (managers): the endpoint's signing secret is shown once. */
export function WebhookForm({ programId }: { programId: string }) {
  const [secret, setSecret] = useState<string | null>(null);
  const create = useStaffForm<typeof WebhookSchema, { secret: string }>({
    schema: WebhookSchema,
    method: "POST",
    url: staffApi.webhooks(programId),
    success: "Webhook created",
    onSuccess: (data) => setSecret(data.secret),
    read: (f) => ({ url: f.text("url"), eventTypes: f.all("eventTypes") as WebhookInput["eventTypes"] }),
  });
  const footer = (
    <>
      <p className="mt-1 text-xs text-slate-600">
        The chosen events of the program (every event when none is ticked) are POSTed here, signed with the
        endpoint&apos;s own secret.
      </p>
      {secret && <ShownOnce what="signing secret" value={secret} testId="new-webhook-secret" />}
    </>
  );
  return (
    <CardForm
      title="New webhook"
      form={create.form}
      pending={create.pending}
      submit="Add webhook"
      className="flex flex-wrap items-end gap-3"
      footer={footer}
    >
      <div className="min-w-56 flex-1">
        <InputField
          label="Webhook URL"
          error={create.errors.url}
          id="webhook-url"
          name="url"
          type="text"
          inputMode="url"
          placeholder="https://example.com/loyalty/events"
        />
      </div>
      <div className="w-full">
        <EventTypeChoices idPrefix="new-webhook" selected={[]} error={create.errors.eventTypes} />
      </div>
    </CardForm>
  );
}
