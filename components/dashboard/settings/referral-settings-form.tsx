"use client";

import { useStaffForm } from "@/lib/staff/client";
import { ReferralSettingsPatch, type ReferralSettingsForm } from "@/lib/staff/forms/program";
import { staffApi } from "@/lib/staff/urls";
import { InputField, wholeNumberInput } from "@/components/ui";
import { DrawerForm, EditDrawer } from "../edit-drawer";

export type ReferralSettingsData = ReferralSettingsForm;

/** The "Referrals" card's "Edit" button and drawer (managers and owners): every referral setting. */
export function ReferralSettingsDrawer(props: {
  programId: string;
  settings: ReferralSettingsData;
  version: string | Date;
}) {
  return (
    <EditDrawer title="Edit referral settings" button="Edit" buttonLabel="Edit referral settings">
      {(close) => <ReferralSettingsEditForm {...props} onSaved={close} />}
    </EditDrawer>
  );
}

function ReferralSettingsEditForm({
  programId,
  settings,
  version,
  onSaved,
}: {
  programId: string;
  settings: ReferralSettingsData;
  /** The program's version (If-Match); only the changed settings are sent (the route's schema is partial). */
  version: string | Date;
  onSaved: () => void;
}) {
  const save = useStaffForm({
    schema: ReferralSettingsPatch,
    method: "PATCH",
    url: staffApi.referralSettings(programId),
    version,
    values: settings,
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
  const { field } = save;
  return (
    <DrawerForm label="Referral settings" save={save} submit="Save referral settings">
      <InputField
        label="Referral link"
        hint="An http(s) URL with {code} where the customer's referral code goes. Empty: no links."
        id="referral-template"
        {...field("referralLinkTemplate")}
        placeholder="https://shop.example.com/join?ref={code}"
      />
      <InputField
        label="Points for the referrer"
        id="referral-referrer-points"
        {...field("referralReferrerPoints")}
        min={0}
        {...wholeNumberInput}
      />
      <InputField
        label="Points for the referred customer"
        id="referral-referred-points"
        {...field("referralReferredPoints")}
        min={0}
        {...wholeNumberInput}
      />
      <InputField
        label="Qualifying earn (minimum points)"
        hint="The referred customer's first earn of at least this many points completes the referral"
        id="referral-min-earn"
        {...field("referralMinEarnPoints")}
        min={1}
        {...wholeNumberInput}
      />
      <InputField
        label="Rewarded referrals per referrer"
        hint="Empty: no cap. Over it the referral still completes; the referrer gets no points."
        id="referral-cap-count"
        {...field("referralCapCount")}
        min={1}
        {...wholeNumberInput}
      />
      <InputField
        label="Cap period (days)"
        id="referral-cap-days"
        {...field("referralCapDays")}
        min={1}
        max={3650}
        {...wholeNumberInput}
      />
    </DrawerForm>
  );
}
