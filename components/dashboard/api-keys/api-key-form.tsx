"use client";

import { useState } from "react";
import { RATE_LIMIT } from "@/lib/domain/api-key-limits";
import { useStaffForm } from "@/lib/staff/client";
import { ApiKeyForm as ApiKeySchema } from "@/lib/staff/forms/api-keys";
import { staffApi } from "@/lib/staff/urls";
import { InputField, ShownOnce } from "@/components/ui";
import { CardForm } from "../card-form";

/** The API keys page's "New API key" card: the key itself is shown once, after creation. */
export function ApiKeyForm({ programId }: { programId: string }) {
  const [created, setCreated] = useState<{ key: string; prefix: string } | null>(null);
  const create = useStaffForm<typeof ApiKeySchema, { key: string; prefix: string }>({
    schema: ApiKeySchema,
    method: "POST",
    url: staffApi.apiKeys(programId),
    success: "API key created",
    clear: "never",
    onSuccess: setCreated,
    // Empty fields are left out: the server's defaults apply (50/s, burst 2 × rate).
    read: (f) => ({
      name: f.text("name"),
      rateLimitPerSec: f.optionalNumber("rateLimitPerSec") ?? undefined,
      rateLimitBurst: f.optionalNumber("rateLimitBurst") ?? undefined,
    }),
  });
  const { field } = create;
  return (
    <CardForm
      title="New API key"
      form={create.form}
      pending={create.pending}
      submit="Create key"
      className="flex flex-wrap items-end gap-3"
      footer={created && <ShownOnce what="key" value={created.key} testId="new-api-key" />}
    >
      <div className="min-w-56 flex-1">
        <InputField label="Name (who uses it)" id="key-name" {...field("name")} required placeholder="Web shop" />
      </div>
      <div className="w-40">
        <InputField
          label="Requests per second"
          id="key-rate"
          {...field("rateLimitPerSec")}
          type="number"
          min={1}
          max={RATE_LIMIT.maxPerSec}
          step={1}
          placeholder={String(RATE_LIMIT.defaultPerSec)}
        />
      </div>
      <div className="w-40">
        <InputField
          label="Burst (at once)"
          id="key-burst"
          {...field("rateLimitBurst")}
          type="number"
          min={1}
          max={RATE_LIMIT.maxBurst}
          step={1}
          placeholder="2 × rate"
        />
      </div>
    </CardForm>
  );
}
