"use client";

import { useStaffForm } from "@/lib/staff/client";
import { CouponPoolForm as CouponPoolSchema } from "@/lib/staff/forms/coupons";
import { staffApi } from "@/lib/staff/urls";
import { InputField } from "@/components/ui";
import { CardForm } from "../card-form";

/** The coupons page's "New coupon pool" card (managers). */
export function CouponPoolForm({ programId }: { programId: string }) {
  const create = useStaffForm({
    schema: CouponPoolSchema,
    method: "POST",
    url: staffApi.couponPools(programId),
    success: "Coupon pool created",
    read: (f) => ({ name: f.text("name"), validDays: f.optionalNumber("validDays") }),
  });
  const { field } = create;
  return (
    <CardForm
      title="New coupon pool"
      form={create.form}
      pending={create.pending}
      submit="Create pool"
      submitClassName="sm:mt-6"
      noValidate
      className="flex flex-wrap items-start gap-3"
    >
      <div className="min-w-56 flex-1">
        <InputField label="Name" id="pool-name" {...field("name")} required placeholder="Summer 10% off" />
      </div>
      <div className="w-44">
        <InputField
          label="Valid for (days)"
          hint="Empty: no expiry"
          id="pool-valid-days"
          {...field("validDays")}
          type="number"
          inputMode="numeric"
          min={1}
          max={3650}
          step={1}
        />
      </div>
    </CardForm>
  );
}
