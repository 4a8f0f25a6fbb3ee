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
  /** Its version: a save made from an older one is refused (409 stale_edit) and offers to reload. */
  updatedAt: Date;
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
    values: tier,
    version: tier.updatedAt,
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
  const { field } = save;
  return (
    <form {...save.form} aria-label={`Edit ${tier.name}`} noValidate className="space-y-4">
      <InputField label="Name" id="edit-tier-name" {...field("name")} />
      <InputField
        label="Required points"
        hint="Changing it re-evaluates every customer's tier at once"
        id="edit-tier-points"
        {...field("requiredPoints")}
        type="number"
        inputMode="numeric"
        min={0}
        step={1}
      />
      <InputField label="Points factor" id="edit-tier-factor" {...field("factor")} type="number" min={0} step={0.05} />
      <InputField label="Image URL" id="edit-tier-image" {...field("image")} type="url" />
      <InputField label="Content" id="edit-tier-content" {...field("content")} />
      <button type="submit" className={buttonClass} disabled={save.pending}>
        Save tier
      </button>
    </form>
  );
}
