"use client";

import { useState } from "react";
import { toast } from "sonner";
import { useStaffWrite } from "@/lib/staff/client";
import { ApiKeyForm as ApiKeySchema, TierForm as TierSchema } from "@/lib/staff/forms";
import { RATE_LIMIT } from "@/lib/domain/api-key-limits";
import { Card, Field, buttonClass, dangerButtonClass, inputClass, secondaryButtonClass } from "@/components/ui";

export function TierForm({ programId }: { programId: string }) {
  const create = useStaffWrite({ schema: TierSchema, method: "POST", url: `/api/staff/${programId}/tiers`, success: "Tier created" });
  const errors = create.errors;
  return (
    <Card title="New tier">
      <form
        className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          create.submit({
            name: String(f.get("name") ?? ""),
            requiredPoints: Number(f.get("requiredPoints")),
            factor: Number(f.get("factor")),
            content: String(f.get("content") ?? "") || null,
            image: String(f.get("image") ?? "") || null,
          });
        }}
      >
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

export function ApiKeyForm({ programId }: { programId: string }) {
  const [created, setCreated] = useState<{ key: string; prefix: string } | null>(null);
  const create = useStaffWrite<typeof ApiKeySchema, { key: string; prefix: string }>({
    schema: ApiKeySchema,
    method: "POST",
    url: `/api/staff/${programId}/api-keys`,
    success: "API key created",
    onSuccess: setCreated,
  });
  const errors = create.errors;
  return (
    <Card title="New API key">
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          // Empty fields are left out: the server's defaults apply (50/s, burst 2 × rate).
          const whole = (name: string) => (String(f.get(name) ?? "") === "" ? undefined : Number(f.get(name)));
          create.submit({ name: String(f.get("name") ?? ""), rateLimitPerSec: whole("rateLimitPerSec"), rateLimitBurst: whole("rateLimitBurst") });
        }}
      >
        <div className="min-w-56 flex-1">
          <Field label="Name (who uses it)" htmlFor="key-name" error={errors.name}>
            <input id="key-name" name="name" required className={inputClass} placeholder="Web shop" />
          </Field>
        </div>
        <div className="w-40">
          <Field label="Requests per second" htmlFor="key-rate" error={errors.rateLimitPerSec}>
            <input id="key-rate" name="rateLimitPerSec" type="number" min={1} max={RATE_LIMIT.maxPerSec} step={1} className={inputClass} placeholder={String(RATE_LIMIT.defaultPerSec)} />
          </Field>
        </div>
        <div className="w-40">
          <Field label="Burst (at once)" htmlFor="key-burst" error={errors.rateLimitBurst}>
            <input id="key-burst" name="rateLimitBurst" type="number" min={1} max={RATE_LIMIT.maxBurst} step={1} className={inputClass} placeholder="2 × rate" />
          </Field>
        </div>
        <button className={buttonClass} type="submit" disabled={create.pending}>
          Create key
        </button>
      </form>
      {created && (
        <div className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3" role="status">
          <p className="text-sm font-medium text-amber-950">Copy this key now: it will not be shown again.</p>
          <div className="mt-2 flex flex-wrap items-center gap-2">
            <code className="break-all rounded bg-white px-2 py-1 font-mono text-sm" data-testid="new-api-key">
              {created.key}
            </code>
            <button
              type="button"
              className={secondaryButtonClass}
              onClick={async () => {
                await navigator.clipboard?.writeText(created.key).catch(() => {});
                toast.success("Copied");
              }}
            >
              Copy
            </button>
          </div>
        </div>
      )}
    </Card>
  );
}

export function RevokeKeyButton({ programId, keyId, name }: { programId: string; keyId: string; name: string }) {
  const revoke = useStaffWrite({ method: "DELETE", url: `/api/staff/${programId}/api-keys/${keyId}`, success: `Key "${name}" revoked` });
  return (
    <button
      type="button"
      className={dangerButtonClass}
      disabled={revoke.pending}
      onClick={() => {
        if (window.confirm(`Revoke "${name}"? Integrations using it stop working within seconds.`)) revoke.submit();
      }}
    >
      Revoke
    </button>
  );
}
