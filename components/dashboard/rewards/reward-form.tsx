"use client";

import { useStaffForm } from "@/lib/staff/client";
import { RewardForm as RewardSchema } from "@/lib/staff/forms/rewards";
import { staffApi } from "@/lib/staff/urls";
import { InputField } from "@/components/ui";
import { CardForm } from "../card-form";

/** The rewards page's "New reward" card (managers). */
export function RewardForm({ programId }: { programId: string }) {
  const create = useStaffForm({
    schema: RewardSchema,
    method: "POST",
    url: staffApi.rewards(programId),
    success: "Reward created",
    read: (f) => ({
      name: f.text("name"),
      description: f.optionalText("description"),
      image: f.optionalText("image"),
      costPoints: f.number("costPoints"),
      stock: f.optionalNumber("stock"),
    }),
  });
  const { field } = create;
  return (
    <CardForm
      title="New reward"
      form={create.form}
      pending={create.pending}
      submit="Create reward"
      submitIn=""
      noValidate
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4"
    >
      <InputField label="Name" id="reward-name" {...field("name")} required placeholder="Free coffee" />
      <InputField
        label="Cost in points"
        id="reward-cost"
        {...field("costPoints")}
        type="number"
        inputMode="numeric"
        min={1}
        step={1}
        required
      />
      <InputField
        label="Stock"
        hint="Leave empty for unlimited"
        id="reward-stock"
        {...field("stock")}
        type="number"
        inputMode="numeric"
        min={0}
        step={1}
      />
      <InputField label="Image URL" id="reward-image" {...field("image")} type="url" placeholder="https://…" />
      <div className="sm:col-span-2 lg:col-span-4">
        <InputField
          label="Description"
          id="reward-description"
          {...field("description")}
          placeholder="What the customer gets"
        />
      </div>
    </CardForm>
  );
}
