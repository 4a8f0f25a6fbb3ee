"use client";

import { useRouter } from "next/navigation";
import { useStaffForm } from "@/lib/staff/client";
import { MAX_CANCEL_HOURS, NewProgramForm, ProgramSettingsPatch } from "@/lib/staff/forms/program";
import { dashboardPages, staffApi } from "@/lib/staff/urls";
import { Field, InputField, inputClass, wholeNumberInput } from "@/components/ui";
import { CardForm } from "../card-form";
import { DrawerForm } from "../edit-drawer";

export interface SettingsData {
  name: string;
  pointsExpiryMonths: number | null;
  tierPeriodMonths: number;
  timeZone: string;
  adjustCeilingSupport: number | null;
  adjustCeilingManager: number | null;
  redemptionCancelHours: number | null;
  allowedOrigins: string[];
}

/** The settings page's edit form (in its drawer): every setting, validated with the route's schema. */
export function SettingsForm({
  programId,
  settings,
  timeZones,
  version,
  onSaved,
}: {
  programId: string;
  settings: SettingsData;
  timeZones: string[];
  /** The program's version (If-Match); only the changed settings are sent (the route's schema is partial). */
  version: string | Date;
  onSaved: () => void;
}) {
  const save = useStaffForm({
    schema: ProgramSettingsPatch,
    method: "PATCH",
    url: staffApi.settings(programId),
    version,
    values: settings,
    success: "Settings saved",
    clear: "never",
    onSuccess: onSaved,
    read: (f) => ({
      name: f.text("name"),
      pointsExpiryMonths: f.optionalNumber("pointsExpiryMonths"),
      tierPeriodMonths: f.number("tierPeriodMonths"),
      timeZone: f.text("timeZone"),
      adjustCeilingSupport: f.optionalNumber("adjustCeilingSupport"),
      adjustCeilingManager: f.optionalNumber("adjustCeilingManager"),
      redemptionCancelHours: f.optionalNumber("redemptionCancelHours"),
      // One origin per line (or separated by commas or spaces).
      allowedOrigins: f
        .text("allowedOrigins")
        .split(/[\s,]+/)
        .filter((o) => o !== ""),
    }),
  });
  const { errors, field } = save;
  const months = { ...wholeNumberInput, min: 1, max: 120 } as const;
  const points = { ...wholeNumberInput, min: 0 } as const;
  return (
    <DrawerForm label="Program settings" save={save} submit="Save settings">
      <InputField label="Name" id="settings-name" {...field("name")} />
      <InputField
        label="Points expire after (months)"
        hint="Empty: points never expire"
        id="settings-expiry"
        {...field("pointsExpiryMonths")}
        {...months}
      />
      <InputField
        label="Tier period (months)"
        hint="Tiers are recalculated at the end of each period"
        id="settings-period"
        {...field("tierPeriodMonths")}
        {...months}
      />
      <Field label="Time zone" htmlFor="settings-zone" hint="The days reports count in" error={errors.timeZone}>
        <select id="settings-zone" name="timeZone" defaultValue={settings.timeZone} className={inputClass}>
          {timeZones.map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
        </select>
      </Field>
      <InputField
        label="Largest adjustment by support (points)"
        hint="Empty: no ceiling"
        id="settings-ceiling-support"
        {...field("adjustCeilingSupport")}
        {...points}
      />
      <InputField
        label="Largest adjustment by managers (points)"
        hint="Empty: no ceiling. Owners have none."
        id="settings-ceiling-manager"
        {...field("adjustCeilingManager")}
        {...points}
      />
      <InputField
        label="Redemptions may be cancelled for (hours)"
        hint="After each redemption. 0: never; empty: at any time."
        id="settings-cancel-hours"
        {...field("redemptionCancelHours")}
        type="number"
        inputMode="numeric"
        min={0}
        max={MAX_CANCEL_HOURS}
        step={1}
      />
      <Field
        label="Web origins allowed to call /me"
        htmlFor="settings-origins"
        hint="One per line, e.g. https://shop.example.com: pages there may call the customer-token routes (CORS). Empty: none."
        error={errors.allowedOrigins}
      >
        <textarea
          id="settings-origins"
          name="allowedOrigins"
          rows={3}
          defaultValue={settings.allowedOrigins.join("\n")}
          className={inputClass}
          aria-invalid={!!errors.allowedOrigins}
          spellCheck={false}
        />
      </Field>
    </DrawerForm>
  );
}

/** The settings page's "New program" card (owners): the new program opens on its settings page. */
export function NewProgramCard({ programId }: { programId: string }) {
  const router = useRouter();
  const create = useStaffForm<typeof NewProgramForm, { programId: string }>({
    schema: NewProgramForm,
    method: "POST",
    url: staffApi.programs(programId),
    success: "Program created: you are its owner",
    onSuccess: (data) => router.push(dashboardPages.settings(data.programId)),
    read: (f) => ({ name: f.text("name") }),
  });
  return (
    <CardForm
      title="New program"
      form={create.form}
      pending={create.pending}
      submit="Create program"
      submitClassName="sm:mt-6"
      noValidate
      className="flex flex-wrap items-start gap-3"
      footer={
        <p className="mt-3 text-xs text-slate-600">
          You become its owner; it starts with no tiers, rewards or keys, and appears in the program switcher.
        </p>
      }
    >
      <div className="min-w-56 flex-1">
        <InputField label="Program name" error={create.errors.name} id="new-program-name" name="name" />
      </div>
    </CardForm>
  );
}

/**
 * "Create a test copy" (owners and managers): the configuration of this program in a new test program, whose clock can be
 * advanced; no customers are copied.
 */
export function TestCopyCard({ programId, name }: { programId: string; name: string }) {
  const router = useRouter();
  const copy = useStaffForm<typeof NewProgramForm, { programId: string }>({
    schema: NewProgramForm,
    method: "POST",
    url: staffApi.testCopy(programId),
    success: "Test copy created: you are its owner",
    onSuccess: (data) => router.push(dashboardPages.settings(data.programId)),
    read: (f) => ({ name: f.text("name") }),
  });
  return (
    <CardForm
      title="Create a test copy"
      form={copy.form}
      pending={copy.pending}
      submit="Create a test copy"
      submitClassName="sm:mt-6"
      noValidate
      className="flex flex-wrap items-start gap-3"
      footer={
        <p className="mt-3 text-xs text-slate-600">
          A test program with this program&apos;s settings, tiers, earning flows, rewards and coupon pools (without
          their codes), and no customers. Its API keys start lk_test_ and its clock moves only when you advance it.
        </p>
      }
    >
      <div className="min-w-56 flex-1">
        <InputField
          label="Test program name"
          error={copy.errors.name}
          id="test-copy-name"
          name="name"
          defaultValue={`${name} (test)`}
        />
      </div>
    </CardForm>
  );
}
