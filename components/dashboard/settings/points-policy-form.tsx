"use client";

import { useStaffForm } from "@/lib/staff/client";
import { PointsPolicyForm } from "@/lib/staff/forms/program";
import { EXPIRY_POLICIES, EXPIRY_ROUNDINGS } from "@/lib/domain/expiry-rules";
import { staffApi } from "@/lib/staff/urls";
import { Field, InputField, checkboxClass, inputClass, wholeNumberInput } from "@/components/ui";
import { DrawerForm, EditDrawer } from "../edit-drawer";

/** The "Points: pending and expiry" card's "Edit" button and drawer (managers and owners). */
export function PointsPolicyDrawer(props: { programId: string; settings: PointsPolicyForm }) {
  return (
    <EditDrawer title="Edit pending points and expiry" button="Edit" buttonLabel="Edit pending points and expiry">
      {(close) => <PointsPolicyEditForm {...props} onSaved={close} />}
    </EditDrawer>
  );
}

function PointsPolicyEditForm({
  programId,
  settings,
  onSaved,
}: {
  programId: string;
  settings: PointsPolicyForm;
  onSaved: () => void;
}) {
  const save = useStaffForm({
    schema: PointsPolicyForm,
    method: "PATCH",
    url: staffApi.pointsPolicy(programId),
    values: settings,
    success: "Points policy saved",
    clear: "never",
    onSuccess: onSaved,
    read: (f) => ({
      pendingDays: f.number("pendingDays"),
      pendingUntilConfirmed: f.checked("pendingUntilConfirmed"),
      pendingCountsForTier: f.checked("pendingCountsForTier"),
      expiryPolicy: f.text("expiryPolicy") as PointsPolicyForm["expiryPolicy"],
      expiryRounding: f.text("expiryRounding") as PointsPolicyForm["expiryRounding"],
      expiryCalendarDate: f.optionalText("expiryCalendarDate"),
      expiryCalendarYears: f.number("expiryCalendarYears"),
      expiryInactivityDays: f.optionalNumber("expiryInactivityDays"),
      expiryWarningDays: f.optionalNumber("expiryWarningDays"),
    }),
  });
  const { errors, field } = save;
  return (
    <DrawerForm label="Pending points and expiry" save={save} submit="Save pending points and expiry">
      <p className="text-sm text-slate-600">Changes apply to points earned after them.</p>
      <InputField
        label="Pending period (days)"
        hint="0: new points are spendable at once"
        id="policy-pending-days"
        {...field("pendingDays")}
        min={0}
        max={365}
        {...wholeNumberInput}
      />
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          name="pendingUntilConfirmed"
          defaultChecked={settings.pendingUntilConfirmed}
          className={checkboxClass}
        />
        Pending until the order is confirmed (POST …/orders/&#123;orderId&#125;/confirm)
      </label>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          name="pendingCountsForTier"
          defaultChecked={settings.pendingCountsForTier}
          className={checkboxClass}
        />
        Pending points count toward tiers at once (default: when they mature)
      </label>
      <Field label="Expiry policy" htmlFor="policy-expiry" error={errors.expiryPolicy}>
        <select id="policy-expiry" name="expiryPolicy" defaultValue={settings.expiryPolicy} className={inputClass}>
          {EXPIRY_POLICIES.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="Rolling: round up to the end of the"
        htmlFor="policy-rounding"
        hint="The months are the program settings' expiry months"
        error={errors.expiryRounding}
      >
        <select
          id="policy-rounding"
          name="expiryRounding"
          defaultValue={settings.expiryRounding}
          className={inputClass}
        >
          {EXPIRY_ROUNDINGS.map((r) => (
            <option key={r} value={r}>
              {r === "none" ? "no rounding" : r}
            </option>
          ))}
        </select>
      </Field>
      <InputField
        label="Calendar: expiry date (MM-DD)"
        id="policy-calendar-date"
        {...field("expiryCalendarDate")}
        placeholder="03-31"
      />
      <InputField
        label="Calendar: years after the year earned"
        id="policy-calendar-years"
        {...field("expiryCalendarYears")}
        min={1}
        max={10}
        {...wholeNumberInput}
      />
      <InputField
        label="Inactivity: days with no earn and no spend"
        id="policy-inactivity-days"
        {...field("expiryInactivityDays")}
        min={1}
        {...wholeNumberInput}
      />
      <InputField
        label="Warn (points.expiring) this many days before"
        hint="Empty: no warning"
        id="policy-warning-days"
        {...field("expiryWarningDays")}
        min={1}
        max={365}
        {...wholeNumberInput}
      />
    </DrawerForm>
  );
}
