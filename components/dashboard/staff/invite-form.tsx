"use client";

import { useState } from "react";
import { useStaffForm } from "@/lib/staff/client";
import { StaffInviteForm as InviteSchema } from "@/lib/staff/forms/staff";
import { staffApi } from "@/lib/staff/urls";
import { Field, InputField, ShownOnce, inputClass } from "@/components/ui";
import { CardForm } from "../card-form";
import { RoleOptions, type StaffRole } from "./role-options";

type Invited = { email: string; added: boolean; path: string | null; expiresAt: string | null };

/** The origin the link is opened on: this page's own (the server never sees the token in a request URL). */
export const fullLink = (path: string) => `${window.location.origin}${path}`;

/**
 * The staff page's "Invite a colleague" card (owners): a one-time link for a new e-mail, shown once here (no mail
 * server: the owner passes it on); an e-mail that has an account already is added to the program at once.
 */
export function InviteForm({ programId }: { programId: string }) {
  const [invited, setInvited] = useState<Invited | null>(null);
  const invite = useStaffForm<typeof InviteSchema, Invited>({
    schema: InviteSchema,
    method: "POST",
    url: staffApi.staffInvites(programId),
    success: (data) => (data.added ? `${data.email} added to the program` : `Invitation for ${data.email} created`),
    onSuccess: (data) => setInvited(data),
    read: (f) => ({
      email: f.text("email"),
      name: f.text("name") || undefined,
      role: f.text("role") as StaffRole,
    }),
  });
  const { errors, field } = invite;
  return (
    <CardForm
      title="Invite a colleague"
      form={invite.form}
      pending={invite.pending}
      submit="Create invitation link"
      submitIn="sm:col-span-2 lg:col-span-3"
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3"
      footer={
        invited?.path ? (
          <>
            <ShownOnce
              what={`invitation link for ${invited.email}`}
              value={fullLink(invited.path)}
              testId="invite-link"
            />
            <p className="mt-2 text-xs text-slate-600">
              Single use; it expires{" "}
              {new Date(invited.expiresAt!).toLocaleString("en-GB", {
                dateStyle: "medium",
                timeStyle: "short",
                timeZone: "UTC",
              })}{" "}
              UTC. Opening it, your colleague chooses a password; a new invitation for the same e-mail replaces it.
            </p>
          </>
        ) : invited?.added ? (
          <p className="mt-3 text-sm text-slate-700" role="status">
            {invited.email} already had an account: it is now a member of this program and signs in with its own
            password.
          </p>
        ) : (
          <p className="mt-3 text-xs text-slate-600">
            No e-mail is sent: you get a one-time link to pass on. An e-mail that already has an account (in another
            program) is added at once.
          </p>
        )
      }
    >
      <InputField label="E-mail" id="invite-email" {...field("email")} type="email" autoComplete="off" />
      <InputField label="Name (optional)" id="invite-name" {...field("name")} autoComplete="off" />
      <Field label="Role" htmlFor="invite-role" error={errors.role}>
        <select id="invite-role" name="role" defaultValue="support" className={inputClass}>
          <RoleOptions />
        </select>
      </Field>
    </CardForm>
  );
}
