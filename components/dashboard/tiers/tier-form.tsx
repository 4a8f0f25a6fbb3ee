"use client";

import { useStaffForm } from "@/lib/staff/client";
import { TierForm as TierSchema } from "@/lib/staff/forms/tiers";
import { staffApi } from "@/lib/staff/urls";
import { InputField } from "@/components/ui";
import { CardForm } from "../card-form";

/** The tiers page's "New tier" card (managers). The values stay after saving, to add the next tier from them. */
export function TierForm({ programId }: { programId: string }) {
  const create = useStaffForm({
    schema: TierSchema,
    method: "POST",
    url: staffApi.tiers(programId),
    success: "Tier created",
    clear: "never",
    read: (f) => ({
      name: f.text("name"),
      requiredPoints: f.number("requiredPoints"),
      factor: f.number("factor"),
      content: f.text("content") || null,
      image: f.text("image") || null,
    }),
  });
  const { errors, field } = create;
  return (
    <CardForm
      title="New tier"
      form={create.form}
      pending={create.pending}
      submit="Create tier"
      submitIn=""
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4"
    >
      <InputField label="Name" id="tier-name" {...field("name")} required />
      <InputField
        label="Required points"
        id="tier-points"
        {...field("requiredPoints")}
        type="number"
        min={0}
        step={1}
        required
      />
      <InputField
        label="Points factor"
        error={errors.factor}
        id="tier-factor"
        name="factor"
        type="number"
        min={0}
        step={0.05}
        defaultValue={1}
        required
      />
      <InputField label="Image URL" id="tier-image" {...field("image")} type="url" />
      <div className="sm:col-span-2 lg:col-span-4">
        <InputField
          label="Content"
          id="tier-content"
          {...field("content")}
          placeholder="What members of this tier get"
        />
      </div>
    </CardForm>
  );
}
