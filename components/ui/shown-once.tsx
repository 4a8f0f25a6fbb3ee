"use client";

import { toast } from "sonner";
import { secondaryButtonClass } from "./field";

/** The one place for a secret shown once, right after it was created (an API key, a signing secret), with a copy button. */
export function ShownOnce({ what, value, testId }: { what: string; value: string; testId: string }) {
  return (
    <div className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3" role="status">
      <p className="text-sm font-medium text-amber-950">Copy this {what} now: it will not be shown again.</p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code className="break-all rounded bg-white px-2 py-1 font-mono text-sm" data-testid={testId}>
          {value}
        </code>
        <button
          type="button"
          className={secondaryButtonClass}
          onClick={async () => {
            await navigator.clipboard?.writeText(value).catch(() => {});
            toast.success("Copied");
          }}
        >
          Copy
        </button>
      </div>
    </div>
  );
}
