"use client";

import { useStaffForm, useStaffWrite } from "@/lib/staff/client";
import { CouponPoolUpdate } from "@/lib/staff/forms/coupons";
import { staffApi } from "@/lib/staff/urls";
import { InputField, buttonClass, secondaryButtonClass } from "@/components/ui";
import { EditDrawer } from "../edit-drawer";

export interface PoolData {
  id: string;
  name: string;
  validDays: number | null;
  active: boolean;
  /** Its version: a save made from an older one is refused (409 stale_edit) and offers to reload. */
  updatedAt: Date;
}

/** A pool row's actions (managers): rename it or change its validity in a drawer; switch it off (no assignments) or on. */
export function CouponPoolActions({ programId, pool }: { programId: string; pool: PoolData }) {
  const url = staffApi.couponPool(programId, pool.id);
  const toggle = useStaffWrite({
    schema: CouponPoolUpdate,
    method: "PATCH",
    url,
    version: pool.updatedAt,
    success: `"${pool.name}" ${pool.active ? "deactivated: it assigns no codes" : "activated"}`,
  });
  return (
    <div className="flex justify-end gap-2 whitespace-nowrap">
      <EditDrawer title={`Edit coupon pool "${pool.name}"`} button="Edit" buttonLabel={`Edit ${pool.name}`}>
        {(close) => <PoolEditForm url={url} pool={pool} onSaved={close} />}
      </EditDrawer>
      <button
        type="button"
        className={`${secondaryButtonClass} min-w-28`}
        disabled={toggle.pending}
        onClick={() => toggle.submit({ active: !pool.active })}
      >
        {pool.active ? "Deactivate" : "Activate"}
        <span className="sr-only"> {pool.name}</span>
      </button>
    </div>
  );
}

function PoolEditForm({ url, pool, onSaved }: { url: string; pool: PoolData; onSaved: () => void }) {
  const save = useStaffForm({
    schema: CouponPoolUpdate,
    method: "PATCH",
    url,
    version: pool.updatedAt,
    success: "Coupon pool saved",
    clear: "never",
    onSuccess: onSaved,
    read: (f) => ({ name: f.text("name"), validDays: f.optionalNumber("validDays") }),
  });
  return (
    <form {...save.form} aria-label={`Edit ${pool.name}`} noValidate className="space-y-4">
      <InputField label="Name" error={save.errors.name} id="edit-pool-name" name="name" defaultValue={pool.name} />
      <InputField
        label="Valid for (days)"
        hint="For codes assigned from now on; empty: no expiry"
        error={save.errors.validDays}
        id="edit-pool-valid-days"
        name="validDays"
        type="number"
        inputMode="numeric"
        min={1}
        max={3650}
        step={1}
        defaultValue={pool.validDays ?? ""}
      />
      <button type="submit" className={buttonClass} disabled={save.pending}>
        Save pool
      </button>
    </form>
  );
}
