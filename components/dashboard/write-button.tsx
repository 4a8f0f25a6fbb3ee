"use client";

import { useStaffWrite, type StaffWrite } from "@/lib/staff/client";

/**
 * The one place for a button that makes one write on click (revoke, disable, re-send), after a confirmation when
 * `confirm` is given: the shared body of the table-row buttons of several pages.
 */
export function WriteButton({
  write,
  body,
  confirm,
  className,
  label,
  version,
  onSuccess,
  children,
}: {
  /** Plain data, so that a server page may render the button too. */
  write: Pick<StaffWrite<never, unknown>, "method" | "url"> & { success: string };
  body?: unknown;
  /** The version of what the write edits, sent as If-Match (lib/staff/client.ts `StaffWrite.version`). */
  version?: string | Date;
  /** The question asked first; null or absent: no question. */
  confirm?: string | null;
  className: string;
  /** The accessible name, when the visible text alone is ambiguous in a table. */
  label?: string;
  /** What to do with the answer (from a client component: e.g. show a link it carries once). */
  onSuccess?: (data: unknown) => void;
  children: React.ReactNode;
}) {
  const { submit, pending } = useStaffWrite({ ...write, schema: undefined, version, onSuccess });
  return (
    <button
      type="button"
      className={className}
      disabled={pending}
      aria-label={label}
      onClick={() => {
        if (!confirm || window.confirm(confirm)) submit(body);
      }}
    >
      {children}
    </button>
  );
}
