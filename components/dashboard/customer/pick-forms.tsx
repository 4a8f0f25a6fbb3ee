"use client";

import { useStaffForm } from "@/lib/staff/client";
import { CouponForm } from "@/lib/staff/forms/coupons";
import { RedeemForm } from "@/lib/staff/forms/rewards";
import { staffApi } from "@/lib/staff/urls";
import { Field, formatNumber, inputClass, secondaryButtonClass } from "@/components/ui";
import { customerQueries, type CustomerProfile } from "./profile";

/** The customer page's one-choice writes: redeem a reward, assign a coupon from a pool. */

interface At {
  programId: string;
  customerId: string;
}

/** A select and a button in one row: the shape of both forms. */
function PickForm({
  title,
  label,
  name,
  error,
  button,
  pending,
  onSubmit,
  children,
}: {
  /** The form's accessible name. */
  title: string;
  label: string;
  name: string;
  error?: string;
  button: string;
  pending: boolean;
  onSubmit: React.FormEventHandler<HTMLFormElement>;
  children: React.ReactNode;
}) {
  return (
    <form className="flex flex-wrap items-end gap-2" aria-label={title} onSubmit={onSubmit}>
      <div className="min-w-48 flex-1">
        <Field label={label} htmlFor={name} error={error}>
          <select id={name} name={name} className={inputClass}>
            {children}
          </select>
        </Field>
      </div>
      <button className={secondaryButtonClass} disabled={pending} type="submit">
        {button}
      </button>
    </form>
  );
}

export function RedeemRewardForm({ programId, customerId, rewards }: At & { rewards: CustomerProfile["rewards"] }) {
  const redeem = useStaffForm<typeof RedeemForm, { redemption: { code: string } }>({
    schema: RedeemForm,
    method: "POST",
    url: staffApi.redeem(programId, customerId),
    success: (data) => `Reward redeemed: code ${data.redemption.code}`,
    invalidate: customerQueries(customerId),
    clear: "never",
    read: (f) => ({ rewardId: f.text("rewardId") }),
  });
  if (rewards.length === 0)
    return <p className="text-sm text-slate-600">No active rewards to redeem in this program.</p>;
  return (
    <PickForm
      title="Redeem a reward"
      label="Redeem a reward"
      name="rewardId"
      error={redeem.errors.rewardId}
      button="Redeem"
      pending={redeem.pending}
      onSubmit={redeem.form.onSubmit}
    >
      {rewards.map((r) => (
        <option key={r.id} value={r.id}>
          {r.name} · {formatNumber(r.costPoints)} pts{r.stock !== null ? ` · ${r.stock} left` : ""}
        </option>
      ))}
    </PickForm>
  );
}

export function AssignCouponForm({ programId, customerId, pools }: At & { pools: CustomerProfile["pools"] }) {
  const assign = useStaffForm<typeof CouponForm, { coupon: { code: string } }>({
    schema: CouponForm,
    method: "POST",
    url: staffApi.coupons(programId, customerId),
    success: (data) => `Coupon ${data.coupon.code} assigned`,
    invalidate: customerQueries(customerId),
    clear: "never",
    read: (f) => ({ couponPoolId: f.text("couponPoolId") }),
  });
  if (pools.length === 0) return <p className="text-sm text-slate-600">No coupon pools in this program.</p>;
  return (
    <PickForm
      title="Assign a coupon"
      label="Assign a coupon from"
      name="couponPoolId"
      error={assign.errors.couponPoolId}
      button="Assign"
      pending={assign.pending}
      onSubmit={assign.form.onSubmit}
    >
      {pools.map((p) => (
        <option key={p.id} value={p.id}>
          {p.name}
        </option>
      ))}
    </PickForm>
  );
}
