"use client";

import { useState } from "react";
import { useStaffForm } from "@/lib/staff/client";
import { PushEndpointForm as PushEndpointSchema } from "@/lib/staff/forms/webhooks";
import { staffApi } from "@/lib/staff/urls";
import { InputField, ShownOnce, buttonClass, secondaryButtonClass } from "@/components/ui";

/** The webhooks page's push endpoint (managers): set, replace or remove it; a new URL gets a new secret, shown once. */
export function PushEndpointForm({
  programId,
  current,
  version,
}: {
  programId: string;
  current: string | null;
  /** The program's version (If-Match): a save from a page someone else has changed since is refused. */
  version?: string | Date;
}) {
  const [secret, setSecret] = useState<string | null>(null);
  const save = useStaffForm<typeof PushEndpointSchema, { url: string | null; secret: string | null }>({
    schema: PushEndpointSchema,
    method: "PUT",
    url: staffApi.pushEndpoint(programId),
    version,
    success: (data) => (data.url ? "Push endpoint saved" : "Push endpoint removed"),
    // The field shows the saved URL (keyed on it), so there is nothing to clear.
    clear: "never",
    onSuccess: (data) => setSecret(data.secret),
    read: (f) => ({ url: f.optionalText("url") }),
  });
  return (
    <div>
      <form {...save.form} aria-label="Push endpoint" className="flex flex-wrap items-end gap-3">
        <div className="min-w-56 flex-1">
          <InputField
            label="Push endpoint URL"
            error={save.errors.url}
            id="push-url"
            name="url"
            type="text"
            inputMode="url"
            defaultValue={current ?? ""}
            key={current ?? ""}
            placeholder="https://example.com/loyalty/push"
          />
        </div>
        <button className={buttonClass} type="submit" disabled={save.pending}>
          Save
        </button>
        {current && (
          <button
            type="button"
            className={secondaryButtonClass}
            disabled={save.pending}
            onClick={() => {
              if (window.confirm("Remove the push endpoint? Queued push notifications are cancelled."))
                save.submit({ url: null });
            }}
          >
            Remove
          </button>
        )}
      </form>
      <p className="mt-1 text-xs text-slate-600">
        Queued push notifications are POSTed here. Saving a URL creates a new signing secret.
      </p>
      {secret && <ShownOnce what="signing secret" value={secret} testId="new-push-secret" />}
    </div>
  );
}
