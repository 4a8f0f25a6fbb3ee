"use client";

import { useStaffForm } from "@/lib/staff/client";
import { CouponPoolForm as CouponPoolSchema } from "@/lib/staff/forms";
import { staffApi } from "@/lib/staff/urls";
import { Card, Field, buttonClass, inputClass } from "@/components/ui";

/** The coupons page's "New coupon pool" card (managers). */
export function CouponPoolForm({ programId }: { programId: string }) {
  const create = useStaffForm({
    schema: CouponPoolSchema,
    method: "POST",
    url: staffApi.couponPools(programId),
    success: "Coupon pool created",
    read: (f) => ({ name: f.text("name"), validDays: f.optionalNumber("validDays") }),
  });
  const errors = create.errors;
  return (
    <Card title="New coupon pool">
      <form {...create.form} aria-label="New coupon pool" noValidate className="flex flex-wrap items-start gap-3">
        <div className="min-w-56 flex-1">
          <Field label="Name" htmlFor="pool-name" error={errors.name}>
            <input id="pool-name" name="name" required className={inputClass} placeholder="Summer 10% off" />
          </Field>
        </div>
        <div className="w-44">
          <Field label="Valid for (days)" htmlFor="pool-valid-days" error={errors.validDays} hint="Empty: no expiry">
            <input id="pool-valid-days" name="validDays" type="number" inputMode="numeric" min={1} max={3650} step={1} className={inputClass} />
          </Field>
        </div>
        <button className={`${buttonClass} sm:mt-6`} type="submit" disabled={create.pending}>
          Create pool
        </button>
      </form>
    </Card>
  );
}
