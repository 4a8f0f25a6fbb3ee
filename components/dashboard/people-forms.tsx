"use client";

import { useRef, useState } from "react";
import { toast } from "sonner";
import { useStaffWrite } from "@/lib/staff/client";
import { ROLES as STAFF_ROLES } from "@/lib/domain/vocabulary";
import {
  PushEndpointForm as PushEndpointSchema,
  StaffForm as StaffSchema,
  StaffRoleForm as StaffRoleSchema,
  WebhookForm as WebhookSchema,
} from "@/lib/staff/forms";
import { Card, Field, buttonClass, dangerButtonClass, inputClass, secondaryButtonClass } from "@/components/ui";

/** A secret shown once, right after it was created, with a copy button (as for API keys). */
function ShownOnce({ what, value, testId }: { what: string; value: string; testId: string }) {
  return (
    <div className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3" role="status">
      <p className="text-sm font-medium text-amber-950">Copy this {what} now: it will not be shown again.</p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code className="break-all rounded bg-white px-2 py-1 font-mono text-sm" data-testid={testId}>
          {value}
        </code>
        <button
          type="button"
          className={secondaryButtonClass}
          onClick={async () => {
            await navigator.clipboard?.writeText(value).catch(() => {});
            toast.success("Copied");
          }}
        >
          Copy
        </button>
      </div>
    </div>
  );
}

export function WebhookForm({ programId }: { programId: string }) {
  const form = useRef<HTMLFormElement>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const create = useStaffWrite<typeof WebhookSchema, { secret: string }>({
    schema: WebhookSchema,
    method: "POST",
    url: `/api/staff/${programId}/webhooks`,
    success: "Webhook created",
    onSuccess: (data) => {
      setSecret(data.secret);
      form.current?.reset();
    },
  });
  return (
    <Card title="New webhook">
      <form
        ref={form}
        aria-label="New webhook"
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          create.submit({ url: String(new FormData(e.currentTarget).get("url") ?? "") });
        }}
      >
        <div className="min-w-56 flex-1">
          <Field label="Webhook URL" htmlFor="webhook-url" error={create.errors.url}>
            <input id="webhook-url" name="url" type="text" inputMode="url" className={inputClass} placeholder="https://example.com/loyalty/events" />
          </Field>
        </div>
        <button className={buttonClass} type="submit" disabled={create.pending}>
          Add webhook
        </button>
      </form>
      <p className="mt-1 text-xs text-slate-600">Every event of the program is POSTed here, signed with the endpoint&apos;s own secret.</p>
      {secret && <ShownOnce what="signing secret" value={secret} testId="new-webhook-secret" />}
    </Card>
  );
}

export function WebhookActiveButton({ programId, webhookId, active, url }: { programId: string; webhookId: string; active: boolean; url: string }) {
  const update = useStaffWrite({
    method: "PATCH",
    url: `/api/staff/${programId}/webhooks/${webhookId}`,
    success: active ? "Webhook disabled" : "Webhook enabled",
  });
  return (
    <button
      type="button"
      aria-label={`${active ? "Disable" : "Enable"} webhook ${url}`}
      className={active ? dangerButtonClass : secondaryButtonClass}
      disabled={update.pending}
      onClick={() => {
        if (!active || window.confirm(`Disable the webhook ${url}? Deliveries still queued for it are cancelled.`)) update.submit({ active: !active });
      }}
    >
      {active ? "Disable" : "Enable"}
    </button>
  );
}

export function PushEndpointForm({ programId, current }: { programId: string; current: string | null }) {
  const [secret, setSecret] = useState<string | null>(null);
  const save = useStaffWrite<typeof PushEndpointSchema, { url: string | null; secret: string | null }>({
    schema: PushEndpointSchema,
    method: "PUT",
    url: `/api/staff/${programId}/push-endpoint`,
    success: (data) => (data.url ? "Push endpoint saved" : "Push endpoint removed"),
    onSuccess: (data) => setSecret(data.secret),
  });
  return (
    <div>
      <form
        aria-label="Push endpoint"
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          save.submit({ url: String(new FormData(e.currentTarget).get("url") ?? "").trim() || null });
        }}
      >
        <div className="min-w-56 flex-1">
          <Field label="Push endpoint URL" htmlFor="push-url" error={save.errors.url}>
            <input id="push-url" name="url" type="text" inputMode="url" defaultValue={current ?? ""} key={current ?? ""} className={inputClass} placeholder="https://example.com/loyalty/push" />
          </Field>
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
              if (window.confirm("Remove the push endpoint? Queued push notifications are cancelled.")) save.submit({ url: null });
            }}
          >
            Remove
          </button>
        )}
      </form>
      <p className="mt-1 text-xs text-slate-600">Queued push notifications are POSTed here. Saving a URL creates a new signing secret.</p>
      {secret && <ShownOnce what="signing secret" value={secret} testId="new-push-secret" />}
    </div>
  );
}

export function ResendButton({ programId, deliveryId }: { programId: string; deliveryId: string }) {
  const resend = useStaffWrite({ method: "POST", url: `/api/staff/${programId}/deliveries/${deliveryId}/resend`, success: "Delivery queued again" });
  return (
    <button type="button" className={`${secondaryButtonClass} whitespace-nowrap`} disabled={resend.pending} aria-label={`Re-send delivery ${deliveryId}`} onClick={() => resend.submit()}>
      Re-send
    </button>
  );
}

const roleLabel = (role: string) => role.charAt(0).toUpperCase() + role.slice(1);

export function StaffForm({ programId }: { programId: string }) {
  const form = useRef<HTMLFormElement>(null);
  const create = useStaffWrite<typeof StaffSchema, { email: string }>({
    schema: StaffSchema,
    method: "POST",
    url: `/api/staff/${programId}/staff`,
    success: (data) => `${data.email} added`,
    onSuccess: () => form.current?.reset(),
  });
  const errors = create.errors;
  return (
    <Card title="Add a staff member">
      <form
        ref={form}
        aria-label="Add a staff member"
        className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          create.submit({
            email: String(f.get("email") ?? ""),
            name: String(f.get("name") ?? ""),
            password: String(f.get("password") ?? ""),
            role: String(f.get("role") ?? "") as (typeof STAFF_ROLES)[number],
          });
        }}
      >
        <Field label="E-mail" htmlFor="staff-email" error={errors.email}>
          <input id="staff-email" name="email" type="email" autoComplete="off" className={inputClass} />
        </Field>
        <Field label="Name" htmlFor="staff-name" error={errors.name}>
          <input id="staff-name" name="name" autoComplete="off" className={inputClass} />
        </Field>
        <Field label="Initial password" htmlFor="staff-password" error={errors.password} hint="At least 12 characters; share it privately.">
          <input id="staff-password" name="password" type="password" autoComplete="new-password" className={inputClass} />
        </Field>
        <Field label="Role" htmlFor="staff-role" error={errors.role}>
          <select id="staff-role" name="role" defaultValue="support" className={inputClass}>
            {STAFF_ROLES.map((r) => (
              <option key={r} value={r}>
                {roleLabel(r)}
              </option>
            ))}
          </select>
        </Field>
        <div className="sm:col-span-2 lg:col-span-4">
          <button className={buttonClass} type="submit" disabled={create.pending}>
            Add staff member
          </button>
        </div>
      </form>
    </Card>
  );
}

export function StaffRoleForm({ programId, staffId, email, role }: { programId: string; staffId: string; email: string; role: string }) {
  const change = useStaffWrite<typeof StaffRoleSchema>({
    schema: StaffRoleSchema,
    method: "PUT",
    url: `/api/staff/${programId}/staff/${staffId}/role`,
    success: "Role changed",
  });
  const id = `role-${staffId}`;
  return (
    <form
      aria-label={`Change the role of ${email}`}
      className="flex items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        change.submit({ role: String(new FormData(e.currentTarget).get("role") ?? "") as (typeof STAFF_ROLES)[number] });
      }}
    >
      <label htmlFor={id} className="sr-only">
        Role of {email}
      </label>
      <select id={id} name="role" defaultValue={role} key={role} className={`${inputClass} min-w-32 py-1`}>
        {STAFF_ROLES.map((r) => (
          <option key={r} value={r}>
            {roleLabel(r)}
          </option>
        ))}
      </select>
      <button type="submit" className={`${secondaryButtonClass} py-1`} disabled={change.pending} aria-label={`Save role of ${email}`}>
        Save
      </button>
    </form>
  );
}

export function StaffDisableButton({ programId, staffId, email, disabled }: { programId: string; staffId: string; email: string; disabled: boolean }) {
  const update = useStaffWrite({
    method: "PUT",
    url: `/api/staff/${programId}/staff/${staffId}/disabled`,
    success: disabled ? `${email} re-enabled` : `${email} disabled`,
  });
  return (
    <button
      type="button"
      className={`${disabled ? secondaryButtonClass : dangerButtonClass} whitespace-nowrap py-1`}
      disabled={update.pending}
      aria-label={`${disabled ? "Re-enable" : "Disable"} ${email}`}
      onClick={() => {
        if (disabled || window.confirm(`Disable ${email}? They are signed out of the dashboard at their next request.`)) update.submit({ disabled: !disabled });
      }}
    >
      {disabled ? "Re-enable" : "Disable"}
    </button>
  );
}
