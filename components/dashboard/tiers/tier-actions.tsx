"use client";

import { useStaffForm, useStaffWrite } from "@/lib/staff/client";
import { TierUpdate } from "@/lib/staff/forms/tiers";
import { staffApi } from "@/lib/staff/urls";
import { InputField, buttonClass, dangerButtonClass } from "@/components/ui";
import { EditDrawer } from "../edit-drawer";

export interface TierData {
  id: string;
  name: string;
  requiredPoints: number;
  factor: number;
  content: string | null;
  image: string | null;
}

const moved = (data: { customersMoved?: number }) =>
  data.customersMoved ? ` · ${data.customersMoved} customer${data.customersMoved === 1 ? "" : "s"} changed tier` : "";

/** A tier row's actions (managers): edit in a drawer, remove after a confirmation. */
export function TierActions({ programId, tier }: { programId: string; tier: TierData }) {
  const remove = useStaffWrite<never, { customersMoved: number }>({
    method: "DELETE",
    url: staffApi.tier(programId, tier.id),
    success: (data) => `Tier "${tier.name}" removed${moved(data)}`,
  });
  return (
    <div className="flex justify-end gap-2 whitespace-nowrap">
      <EditDrawer title={`Edit tier "${tier.name}"`} button="Edit" buttonLabel={`Edit ${tier.name}`}>
        {(close) => <TierEditForm programId={programId} tier={tier} onSaved={close} />}
      </EditDrawer>
      <button
        type="button"
        className={dangerButtonClass}
        disabled={remove.pending}
        aria-label={`Remove ${tier.name}`}
        onClick={() => {
          if (window.confirm(`Remove the tier "${tier.name}"? Its customers move to the best tier they still reach.`))
            remove.submit();
        }}
      >
        Remove
      </button>
    </div>
  );
}

function TierEditForm({ programId, tier, onSaved }: { programId: string; tier: TierData; onSaved: () => void }) {
  const save = useStaffForm<typeof TierUpdate, { customersMoved: number }>({
    schema: TierUpdate,
    method: "PATCH",
    url: staffApi.tier(programId, tier.id),
    success: (data) => `Tier saved${moved(data)}`,
    clear: "never",
    onSuccess: onSaved,
    read: (f) => ({
      name: f.text("name"),
      requiredPoints: f.number("requiredPoints"),
      factor: f.number("factor"),
      content: f.text("content") || null,
      image: f.text("image") || null,
    }),
  });
  const errors = save.errors;
  return (
    <form {...save.form} aria-label={`Edit ${tier.name}`} noValidate className="space-y-4">
      <InputField label="Name" error={errors.name} id="edit-tier-name" name="name" defaultValue={tier.name} />
      <InputField
        label="Required points"
        hint="Changing it re-evaluates every customer's tier at once"
        error={errors.requiredPoints}
        id="edit-tier-points"
        name="requiredPoints"
        type="number"
        inputMode="numeric"
        min={0}
        step={1}
        defaultValue={tier.requiredPoints}
      />
      <InputField
        label="Points factor"
        error={errors.factor}
        id="edit-tier-factor"
        name="factor"
        type="number"
        min={0}
        step={0.05}
        defaultValue={tier.factor}
      />
      <InputField
        label="Image URL"
        error={errors.image}
        id="edit-tier-image"
        name="image"
        type="url"
        defaultValue={tier.image ?? ""}
      />
      <InputField
        label="Content"
        error={errors.content}
        id="edit-tier-content"
        name="content"
        defaultValue={tier.content ?? ""}
      />
      <button type="submit" className={buttonClass} disabled={save.pending}>
        Save tier
      </button>
    </form>
  );
}
