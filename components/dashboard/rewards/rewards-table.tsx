"use client";

import { useId } from "react";
import { useStaffWrite } from "@/lib/staff/client";
import { formValues } from "@/lib/staff/form-data";
import { RewardUpdate as RewardUpdateSchema } from "@/lib/staff/forms";
import { staffApi } from "@/lib/staff/urls";
import { ActiveBadge, FieldError, Table, formatNumber, inputClass, secondaryButtonClass } from "@/components/ui";

export interface RewardRowData {
  id: string;
  name: string;
  description: string | null;
  costPoints: number;
  stock: number | null;
  active: boolean;
  redemptions: number;
}

/** A number input sized for a table cell (the form inputs fill their field). */
const cellInputClass = `${inputClass.replace("w-full", "w-28")} ml-auto text-right tabular-nums`;

/** The rewards page's table; managers edit cost and stock in place and switch a reward on or off. */
export function RewardsTable({
  programId,
  rewards,
  canManage,
}: {
  programId: string;
  rewards: RewardRowData[];
  canManage: boolean;
}) {
  const columns = [
    { label: "Reward" },
    { label: "Cost (points)", align: "right" },
    { label: "Stock", align: "right" },
    { label: "Status" },
    { label: "Redemptions", align: "right" },
    canManage && { label: "Actions", hidden: true },
  ] as const;
  return (
    <Table label="Rewards" columns={columns} rows={rewards}>
      {(r) =>
        canManage ? (
          <EditableRewardRow key={`${r.id}:${r.costPoints}:${r.stock}:${r.active}`} programId={programId} reward={r} />
        ) : (
          <RewardRowView key={r.id} reward={r} />
        )
      }
    </Table>
  );
}

function RewardName({ reward }: { reward: RewardRowData }) {
  return (
    <td className="px-4 py-2">
      <p className="font-medium">{reward.name}</p>
      {reward.description && <p className="max-w-xs truncate text-xs text-slate-600">{reward.description}</p>}
    </td>
  );
}

function RewardRowView({ reward }: { reward: RewardRowData }) {
  return (
    <tr>
      <RewardName reward={reward} />
      <td className="px-4 py-2 text-right tabular-nums">{formatNumber(reward.costPoints)}</td>
      <td className="px-4 py-2 text-right tabular-nums">
        {reward.stock === null ? "unlimited" : formatNumber(reward.stock)}
      </td>
      <td className="px-4 py-2">
        <ActiveBadge active={reward.active} />
      </td>
      <td className="px-4 py-2 text-right tabular-nums">{formatNumber(reward.redemptions)}</td>
    </tr>
  );
}

function EditableRewardRow({ programId, reward }: { programId: string; reward: RewardRowData }) {
  const formId = useId();
  const url = staffApi.reward(programId, reward.id);
  const save = useStaffWrite({ schema: RewardUpdateSchema, method: "PATCH", url, success: `"${reward.name}" saved` });
  const toggle = useStaffWrite({
    schema: RewardUpdateSchema,
    method: "PATCH",
    url,
    success: `"${reward.name}" ${reward.active ? "deactivated" : "activated"}`,
  });
  const errors = { ...toggle.errors, ...save.errors };
  const numberCell = {
    form: formId,
    type: "number",
    inputMode: "numeric",
    step: 1,
    className: cellInputClass,
  } as const;
  return (
    <tr className="align-top" data-testid={`reward-${reward.id}`}>
      <RewardName reward={reward} />
      <td className="px-4 py-2 text-right">
        <input
          {...numberCell}
          name="costPoints"
          min={1}
          defaultValue={reward.costPoints}
          aria-label={`Cost of ${reward.name} in points`}
        />
        <FieldError error={errors.costPoints} className="mt-1" />
      </td>
      <td className="px-4 py-2 text-right">
        <input
          {...numberCell}
          name="stock"
          min={0}
          defaultValue={reward.stock ?? ""}
          placeholder="unlimited"
          aria-label={`Stock of ${reward.name} (empty for unlimited)`}
        />
        <FieldError error={errors.stock} className="mt-1" />
      </td>
      <td className="px-4 py-2 pt-4">
        <ActiveBadge active={reward.active} />
      </td>
      <td className="px-4 py-2 pt-4 text-right tabular-nums">{formatNumber(reward.redemptions)}</td>
      <td className="px-4 py-2">
        <form
          id={formId}
          aria-label={`Edit ${reward.name}`}
          noValidate
          className="flex justify-end gap-2 whitespace-nowrap"
          onSubmit={(e) => {
            e.preventDefault();
            const f = formValues(e.currentTarget);
            save.submit({ costPoints: f.number("costPoints"), stock: f.optionalNumber("stock") });
          }}
        >
          <button type="submit" className={secondaryButtonClass} disabled={save.pending}>
            Save<span className="sr-only"> {reward.name}</span>
          </button>
          <button
            type="button"
            className={`${secondaryButtonClass} min-w-28`}
            disabled={toggle.pending}
            onClick={() => toggle.submit({ active: !reward.active })}
          >
            {reward.active ? "Deactivate" : "Activate"}
            <span className="sr-only"> {reward.name}</span>
          </button>
        </form>
      </td>
    </tr>
  );
}
