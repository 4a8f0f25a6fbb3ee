"use client";

import { useStaffForm } from "@/lib/staff/client";
import { StaffForm as StaffSchema } from "@/lib/staff/forms/staff";
import { staffApi } from "@/lib/staff/urls";
import { Field, InputField, inputClass } from "@/components/ui";
import { CardForm } from "../card-form";
import { RoleOptions, type StaffRole } from "./role-options";

/** The staff page's "Add a staff member" card (owners). */
export function StaffForm({ programId }: { programId: string }) {
  const create = useStaffForm<typeof StaffSchema, { email: string }>({
    schema: StaffSchema,
    method: "POST",
    url: staffApi.staff(programId),
    success: (data) => `${data.email} added`,
    read: (f) => ({
      email: f.text("email"),
      name: f.text("name"),
      password: f.text("password"),
      role: f.text("role") as StaffRole,
    }),
  });
  const { errors, field } = create;
  return (
    <CardForm
      title="Add a staff member"
      form={create.form}
      pending={create.pending}
      submit="Add staff member"
      submitIn="sm:col-span-2 lg:col-span-4"
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4"
    >
      <InputField label="E-mail" id="staff-email" {...field("email")} type="email" autoComplete="off" />
      <InputField label="Name" id="staff-name" {...field("name")} autoComplete="off" />
      <InputField
        label="Initial password"
        hint="At least 12 characters; share it privately."
        id="staff-password"
        {...field("password")}
        type="password"
        autoComplete="new-password"
      />
      <Field label="Role" htmlFor="staff-role" error={errors.role}>
        <select id="staff-role" name="role" defaultValue="support" className={inputClass}>
          <RoleOptions />
        </select>
      </Field>
    </CardForm>
  );
}
