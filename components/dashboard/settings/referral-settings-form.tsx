"use client";

import { useStaffForm } from "@/lib/staff/client";
import { ReferralSettingsForm } from "@/lib/staff/forms/program";
import { staffApi } from "@/lib/staff/urls";
import { InputField, buttonClass } from "@/components/ui";
import { EditDrawer } from "../edit-drawer";

export type ReferralSettingsData = ReferralSettingsForm;

/** The "Referrals" card's "Edit" button and drawer (managers and owners): every referral setting. */
export function ReferralSettingsDrawer(props: { programId: string; settings: ReferralSettingsData }) {
  return (
    <EditDrawer title="Edit referral settings" button="Edit" buttonLabel="Edit referral settings">
      {(close) => <ReferralSettingsEditForm {...props} onSaved={close} />}
    </EditDrawer>
  );
}

function ReferralSettingsEditForm({
  programId,
  settings,
  onSaved,
}: {
  programId: string;
  settings: ReferralSettingsData;
  onSaved: () => void;
}) {
  const save = useStaffForm({
    schema: ReferralSettingsForm,
    method: "PATCH",
    url: staffApi.referralSettings(programId),
    success: "Referral settings saved",
    clear: "never",
    onSuccess: onSaved,
    read: (f) => ({
      referralLinkTemplate: f.optionalText("referralLinkTemplate"),
      referralReferrerPoints: f.number("referralReferrerPoints"),
      referralReferredPoints: f.number("referralReferredPoints"),
      referralMinEarnPoints: f.number("referralMinEarnPoints"),
      referralCapCount: f.optionalNumber("referralCapCount"),
      referralCapDays: f.number("referralCapDays"),
    }),
  });
  const errors = save.errors;
  const whole = { type: "number", inputMode: "numeric", step: 1 } as const;
  return (
    <form {...save.form} aria-label="Referral settings" noValidate className="space-y-4">
      <InputField
        label="Referral link"
        hint="An http(s) URL with {code} where the customer's referral code goes. Empty: no links."
        error={errors.referralLinkTemplate}
        id="referral-template"
        name="referralLinkTemplate"
        defaultValue={settings.referralLinkTemplate ?? ""}
        placeholder="https://shop.example.com/join?ref={code}"
      />
      <InputField
        label="Points for the referrer"
        error={errors.referralReferrerPoints}
        id="referral-referrer-points"
        name="referralReferrerPoints"
        defaultValue={settings.referralReferrerPoints}
        min={0}
        {...whole}
      />
      <InputField
        label="Points for the referred customer"
        error={errors.referralReferredPoints}
        id="referral-referred-points"
        name="referralReferredPoints"
        defaultValue={settings.referralReferredPoints}
        min={0}
        {...whole}
      />
      <InputField
        label="Qualifying earn (minimum points)"
        hint="The referred customer's first earn of at least this many points completes the referral"
        error={errors.referralMinEarnPoints}
        id="referral-min-earn"
        name="referralMinEarnPoints"
        defaultValue={settings.referralMinEarnPoints}
        min={1}
        {...whole}
      />
      <InputField
        label="Rewarded referrals per referrer"
        hint="Empty: no cap. Over it the referral still completes; the referrer gets no points."
        error={errors.referralCapCount}
        id="referral-cap-count"
        name="referralCapCount"
        defaultValue={settings.referralCapCount ?? ""}
        min={1}
        {...whole}
      />
      <InputField
        label="Cap period (days)"
        error={errors.referralCapDays}
        id="referral-cap-days"
        name="referralCapDays"
        defaultValue={settings.referralCapDays}
        min={1}
        max={3650}
        {...whole}
      />
      <button type="submit" className={buttonClass} disabled={save.pending}>
        Save referral settings
      </button>
    </form>
  );
}
