"use client";

import { useStaffForm, useStaffWrite } from "@/lib/staff/client";
import { RewardUpdate as RewardUpdateSchema } from "@/lib/staff/forms/rewards";
import { staffApi } from "@/lib/staff/urls";
import {
  ActiveBadge,
  Field,
  InputField,
  Table,
  buttonClass,
  checkboxClass,
  formatNumber,
  inputClass,
  secondaryButtonClass,
} from "@/components/ui";
import { EditDrawer } from "../edit-drawer";

export interface RewardRowData {
  id: string;
  name: string;
  description: string | null;
  image: string | null;
  costPoints: number;
  stock: number | null;
  active: boolean;
  perCustomerLimit: number | null;
  minTierId: string | null;
  redemptions: number;
  /** Its version: a save made from an older one is refused (409 stale_edit) and offers to reload. */
  updatedAt: Date;
}

export interface TierOption {
  id: string;
  name: string;
}

/** The rewards page's table: a read view for every role; managers edit every field in a drawer and switch a reward on or off. */
export function RewardsTable({
  programId,
  rewards,
  tiers,
  canManage,
}: {
  programId: string;
  rewards: RewardRowData[];
  tiers: TierOption[];
  canManage: boolean;
}) {
  const columns = [
    { label: "Reward" },
    { label: "Cost (points)", align: "right" },
    { label: "Stock", align: "right" },
    { label: "Who may redeem" },
    { label: "Status" },
    { label: "Redemptions", align: "right" },
    canManage && { label: "Actions", hidden: true },
  ] as const;
  const tierName = (id: string | null) => tiers.find((t) => t.id === id)?.name ?? null;
  return (
    <Table label="Rewards" columns={columns} rows={rewards}>
      {(r) => (
        <tr key={r.id} data-testid={`reward-${r.id}`}>
          <td className="px-4 py-2">
            <p className="font-medium">{r.name}</p>
            {r.description && <p className="max-w-xs truncate text-xs text-slate-600">{r.description}</p>}
          </td>
          <td className="px-4 py-2 text-right tabular-nums">{formatNumber(r.costPoints)}</td>
          <td className="px-4 py-2 text-right tabular-nums">
            {r.stock === null ? "unlimited" : formatNumber(r.stock)}
          </td>
          <td className="px-4 py-2 text-xs text-slate-700">
            <p>{tierName(r.minTierId) ? `${tierName(r.minTierId)} tier or higher` : "every customer"}</p>
            <p>
              {r.perCustomerLimit === null ? "no limit per customer" : `at most ${r.perCustomerLimit} per customer`}
            </p>
          </td>
          <td className="px-4 py-2">
            <ActiveBadge active={r.active} />
          </td>
          <td className="px-4 py-2 text-right tabular-nums">{formatNumber(r.redemptions)}</td>
          {canManage && (
            <td className="px-4 py-2">
              <RewardActions programId={programId} reward={r} tiers={tiers} />
            </td>
          )}
        </tr>
      )}
    </Table>
  );
}

function RewardActions({
  programId,
  reward,
  tiers,
}: {
  programId: string;
  reward: RewardRowData;
  tiers: TierOption[];
}) {
  const toggle = useStaffWrite({
    schema: RewardUpdateSchema,
    method: "PATCH",
    url: staffApi.reward(programId, reward.id),
    version: reward.updatedAt,
    success: `"${reward.name}" ${reward.active ? "deactivated" : "activated"}`,
  });
  return (
    <div className="flex justify-end gap-2 whitespace-nowrap">
      <EditDrawer title={`Edit reward "${reward.name}"`} button="Edit" buttonLabel={`Edit ${reward.name}`}>
        {(close) => <RewardEditForm programId={programId} reward={reward} tiers={tiers} onSaved={close} />}
      </EditDrawer>
      <button
        type="button"
        className={`${secondaryButtonClass} min-w-28`}
        disabled={toggle.pending}
        onClick={() => toggle.submit({ active: !reward.active })}
      >
        {reward.active ? "Deactivate" : "Activate"}
        <span className="sr-only"> {reward.name}</span>
      </button>
    </div>
  );
}

function RewardEditForm({
  programId,
  reward,
  tiers,
  onSaved,
}: {
  programId: string;
  reward: RewardRowData;
  tiers: TierOption[];
  onSaved: () => void;
}) {
  const save = useStaffForm({
    schema: RewardUpdateSchema,
    method: "PATCH",
    url: staffApi.reward(programId, reward.id),
    version: reward.updatedAt,
    values: reward,
    success: "Reward saved",
    clear: "never",
    onSuccess: onSaved,
    read: (f) => ({
      name: f.text("name"),
      description: f.optionalText("description"),
      image: f.optionalText("image"),
      costPoints: f.number("costPoints"),
      stock: f.optionalNumber("stock"),
      perCustomerLimit: f.optionalNumber("perCustomerLimit"),
      minTierId: f.optionalText("minTierId"),
      active: f.checked("active"),
    }),
  });
  const { errors, field } = save;
  const whole = { type: "number", inputMode: "numeric", step: 1 } as const;
  return (
    <form {...save.form} aria-label={`Edit ${reward.name}`} noValidate className="space-y-4">
      <InputField label="Name" id="edit-reward-name" {...field("name")} />
      <InputField label="Description" id="edit-reward-description" {...field("description")} />
      <InputField label="Image URL" id="edit-reward-image" {...field("image")} type="url" />
      <InputField label="Cost in points" id="edit-reward-cost" {...field("costPoints")} min={1} {...whole} />
      <InputField label="Stock" hint="Empty: unlimited" id="edit-reward-stock" {...field("stock")} min={0} {...whole} />
      <InputField
        label="Redemptions per customer"
        hint="Empty: no limit"
        id="edit-reward-limit"
        {...field("perCustomerLimit")}
        min={1}
        {...whole}
      />
      <Field label="Minimum tier" htmlFor="edit-reward-tier" error={errors.minTierId}>
        <select id="edit-reward-tier" name="minTierId" defaultValue={reward.minTierId ?? ""} className={inputClass}>
          <option value="">Every customer</option>
          {tiers.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name} or higher
            </option>
          ))}
        </select>
      </Field>
      <div className="flex items-center gap-2 text-sm">
        <input
          id="edit-reward-active"
          name="active"
          type="checkbox"
          defaultChecked={reward.active}
          className={checkboxClass}
        />
        <label htmlFor="edit-reward-active" className="font-medium text-slate-800">
          Active (customers can redeem it)
        </label>
      </div>
      <button type="submit" className={buttonClass} disabled={save.pending}>
        Save reward
      </button>
    </form>
  );
}
