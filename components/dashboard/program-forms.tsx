"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { toast } from "sonner";
import { staffFetch, StaffApiError } from "@/lib/staff/client";
import { Card, Field, buttonClass, dangerButtonClass, inputClass, secondaryButtonClass } from "@/components/ui";

function useWrite<T>(onDone: (data: T) => void) {
  const router = useRouter();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const mutation = useMutation({
    mutationFn: ({ method, url, body }: { method: string; url: string; body?: unknown }) => staffFetch<T>(method, url, body),
    onSuccess: (data) => {
      setErrors({});
      onDone(data);
      router.refresh();
    },
    onError: (err) => {
      if (err instanceof StaffApiError) setErrors(err.fields);
      toast.error(err.message);
    },
  });
  return { mutation, errors };
}

export function TierForm({ programId }: { programId: string }) {
  const { mutation, errors } = useWrite(() => toast.success("Tier created"));
  return (
    <Card title="New tier">
      <form
        className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          mutation.mutate({
            method: "POST",
            url: `/api/staff/${programId}/tiers`,
            body: {
              name: String(f.get("name") ?? ""),
              requiredPoints: Number(f.get("requiredPoints")),
              factor: Number(f.get("factor")),
              content: String(f.get("content") ?? "") || null,
              image: String(f.get("image") ?? "") || null,
            },
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
          <button className={buttonClass} type="submit" disabled={mutation.isPending}>
            Create tier
          </button>
        </div>
      </form>
    </Card>
  );
}

export function ApiKeyForm({ programId }: { programId: string }) {
  const [created, setCreated] = useState<{ key: string; prefix: string } | null>(null);
  const { mutation, errors } = useWrite<{ key: string; prefix: string }>((data) => {
    setCreated(data);
    toast.success("API key created");
  });
  return (
    <Card title="New API key">
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          mutation.mutate({ method: "POST", url: `/api/staff/${programId}/api-keys`, body: { name: String(new FormData(e.currentTarget).get("name") ?? "") } });
        }}
      >
        <div className="min-w-56 flex-1">
          <Field label="Name (who uses it)" htmlFor="key-name" error={errors.name}>
            <input id="key-name" name="name" required className={inputClass} placeholder="Web shop" />
          </Field>
        </div>
        <button className={buttonClass} type="submit" disabled={mutation.isPending}>
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
  const { mutation } = useWrite(() => toast.success(`Key "${name}" revoked`));
  return (
    <button
      type="button"
      className={dangerButtonClass}
      disabled={mutation.isPending}
      onClick={() => {
        if (window.confirm(`Revoke "${name}"? Integrations using it stop working within seconds.`)) {
          mutation.mutate({ method: "DELETE", url: `/api/staff/${programId}/api-keys/${keyId}` });
        }
      }}
    >
      Revoke
    </button>
  );
}
