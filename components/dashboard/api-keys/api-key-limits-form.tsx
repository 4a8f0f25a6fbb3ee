"use client";

import { RATE_LIMIT } from "@/lib/domain/api-key-limits";
import { useStaffForm } from "@/lib/staff/client";
import { ApiKeyLimits } from "@/lib/staff/forms/api-keys";
import { staffApi } from "@/lib/staff/urls";
import { InputField, buttonClass } from "@/components/ui";

/** The API keys page's "Change limits" of one key (managers): its rate and burst, effective at the next request. */
export function ApiKeyLimitsForm({
  programId,
  keyId,
  name,
  rateLimitPerSec,
  rateLimitBurst,
  version,
}: {
  programId: string;
  keyId: string;
  name: string;
  rateLimitPerSec: number;
  rateLimitBurst: number;
  /** The key's version (If-Match). The rate and burst are sent together: a burst left empty follows the rate. */
  version: string | Date;
}) {
  const save = useStaffForm<typeof ApiKeyLimits, { rateLimitPerSec: number; rateLimitBurst: number }>({
    schema: ApiKeyLimits,
    method: "PATCH",
    url: staffApi.apiKey(programId, keyId),
    version,
    changedOnly: false,
    success: (data) => `"${name}" now allows ${data.rateLimitPerSec}/s, burst ${data.rateLimitBurst}`,
    // The fields show the saved limits (keyed on them), so there is nothing to clear.
    clear: "never",
    read: (f) => ({
      rateLimitPerSec: f.number("rateLimitPerSec"),
      rateLimitBurst: f.optionalNumber("rateLimitBurst") ?? undefined,
    }),
  });
  return (
    <details className="mt-2 text-sm">
      <summary className="cursor-pointer rounded text-indigo-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400">
        Change limits<span className="sr-only"> of {name}</span>
      </summary>
      <form
        {...save.form}
        aria-label={`Limits of ${name}`}
        className="mt-2 flex flex-wrap items-end gap-3"
        key={`${rateLimitPerSec}/${rateLimitBurst}`}
      >
        <div className="w-40">
          <InputField
            label="Requests per second"
            error={save.errors.rateLimitPerSec}
            id={`rate-${keyId}`}
            name="rateLimitPerSec"
            type="number"
            min={1}
            max={RATE_LIMIT.maxPerSec}
            step={1}
            required
            defaultValue={rateLimitPerSec}
          />
        </div>
        <div className="w-40">
          <InputField
            label="Burst (at once)"
            error={save.errors.rateLimitBurst}
            id={`burst-${keyId}`}
            name="rateLimitBurst"
            type="number"
            min={1}
            max={RATE_LIMIT.maxBurst}
            step={1}
            placeholder="2 × rate"
            defaultValue={rateLimitBurst}
          />
        </div>
        <button className={buttonClass} type="submit" disabled={save.pending}>
          Save limits
        </button>
      </form>
    </details>
  );
}
