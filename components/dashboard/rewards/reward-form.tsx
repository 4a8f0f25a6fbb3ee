"use client";

import { useStaffForm } from "@/lib/staff/client";
import { RewardForm as RewardSchema } from "@/lib/staff/forms";
import { staffApi } from "@/lib/staff/urls";
import { Card, Field, buttonClass, inputClass } from "@/components/ui";

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
  const errors = create.errors;
  return (
    <Card title="New reward">
      <form {...create.form} aria-label="New reward" noValidate className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Field label="Name" htmlFor="reward-name" error={errors.name}>
          <input id="reward-name" name="name" required className={inputClass} placeholder="Free coffee" />
        </Field>
        <Field label="Cost in points" htmlFor="reward-cost" error={errors.costPoints}>
          <input id="reward-cost" name="costPoints" type="number" inputMode="numeric" min={1} step={1} required className={inputClass} />
        </Field>
        <Field label="Stock" htmlFor="reward-stock" error={errors.stock} hint="Leave empty for unlimited">
          <input id="reward-stock" name="stock" type="number" inputMode="numeric" min={0} step={1} className={inputClass} />
        </Field>
        <Field label="Image URL" htmlFor="reward-image" error={errors.image}>
          <input id="reward-image" name="image" type="url" className={inputClass} placeholder="https://…" />
        </Field>
        <div className="sm:col-span-2 lg:col-span-4">
          <Field label="Description" htmlFor="reward-description" error={errors.description}>
            <input id="reward-description" name="description" className={inputClass} placeholder="What the customer gets" />
          </Field>
        </div>
        <div>
          <button className={buttonClass} type="submit" disabled={create.pending}>
            Create reward
          </button>
        </div>
      </form>
    </Card>
  );
}
