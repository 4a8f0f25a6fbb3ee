"use client";

import { useStaffForm } from "@/lib/staff/client";
import { TierForm as TierSchema } from "@/lib/staff/forms";
import { staffApi } from "@/lib/staff/urls";
import { Card, Field, buttonClass, inputClass } from "@/components/ui";

/** The tiers page's "New tier" card (managers). The values stay after saving, to add the next tier from them. */
export function TierForm({ programId }: { programId: string }) {
  const create = useStaffForm({
    schema: TierSchema,
    method: "POST",
    url: staffApi.tiers(programId),
    success: "Tier created",
    keepValues: true,
    read: (f) => ({
      name: f.text("name"),
      requiredPoints: f.number("requiredPoints"),
      factor: f.number("factor"),
      content: f.text("content") || null,
      image: f.text("image") || null,
    }),
  });
  const errors = create.errors;
  return (
    <Card title="New tier">
      <form {...create.form} aria-label="New tier" className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Field label="Name" htmlFor="tier-name" error={errors.name}>
          <input id="tier-name" name="name" required className={inputClass} />
        </Field>
        <Field label="Required points" htmlFor="tier-points" error={errors.requiredPoints}>
          <input id="tier-points" name="requiredPoints" type="number" min={0} step={1} required className={inputClass} />
        </Field>
        <Field label="Points factor" htmlFor="tier-factor" error={errors.factor}>
          <input id="tier-factor" name="factor" type="number" min={0} step={0.05} defaultValue={1} required className={inputClass} />
        </Field>
        <Field label="Image URL" htmlFor="tier-image" error={errors.image}>
          <input id="tier-image" name="image" type="url" className={inputClass} />
        </Field>
        <div className="sm:col-span-2 lg:col-span-4">
          <Field label="Content" htmlFor="tier-content" error={errors.content}>
            <input id="tier-content" name="content" className={inputClass} placeholder="What members of this tier get" />
          </Field>
        </div>
        <div>
          <button className={buttonClass} type="submit" disabled={create.pending}>
            Create tier
          </button>
        </div>
      </form>
    </Card>
  );
}
