"use client";

import { useStaffForm } from "@/lib/staff/client";
import { PointValueForm } from "@/lib/staff/forms/finance";
import { staffApi } from "@/lib/staff/urls";
import { InputField } from "@/components/ui";
import { DrawerForm, EditDrawer } from "../edit-drawer";

/** The "Value of a point" card's "Edit" button and drawer (managers and owners). */
export function PointValueDrawer(props: { programId: string; currency: string | null; pointValue: string | null }) {
  return (
    <EditDrawer title="Value of a point" button="Edit" buttonLabel="Edit the value of a point">
      {(close) => <PointValueEditForm {...props} onSaved={close} />}
    </EditDrawer>
  );
}

function PointValueEditForm({
  programId,
  currency,
  pointValue,
  onSaved,
}: {
  programId: string;
  currency: string | null;
  pointValue: string | null;
  onSaved: () => void;
}) {
  const save = useStaffForm({
    schema: PointValueForm,
    method: "PATCH",
    url: staffApi.pointValue(programId),
    values: { currency, pointValue },
    success: "Value of a point saved",
    clear: "never",
    onSuccess: onSaved,
    read: (f) => ({ currency: f.optionalText("currency"), pointValue: f.optionalText("pointValue") }),
  });
  const { field } = save;
  return (
    <DrawerForm label="Value of a point" save={save} submit="Save">
      <InputField
        label="Currency"
        hint="ISO 4217 code, e.g. EUR. Empty, with an empty value: points only."
        id="point-currency"
        {...field("currency")}
        maxLength={3}
      />
      <InputField
        label="Value of one point"
        hint="At most 6 decimals, e.g. 0.01. Every day of the reports is valued at it."
        id="point-value"
        {...field("pointValue")}
        inputMode="decimal"
      />
    </DrawerForm>
  );
}
