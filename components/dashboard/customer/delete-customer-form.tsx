"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { useStaffWrite } from "@/lib/staff/client";
import { dashboardPages, queryKeys, staffApi } from "@/lib/staff/urls";
import { dangerButtonClass, inputClass } from "@/components/ui";

/** Erases the customer for good, once the staff member has typed the customer's e-mail; then back to the list. */
export function DeleteCustomerForm({
  programId,
  customerId,
  email,
}: {
  programId: string;
  customerId: string;
  email: string;
}) {
  const router = useRouter();
  const [confirm, setConfirm] = useState("");
  const remove = useStaffWrite({
    method: "DELETE",
    url: staffApi.customer(programId, customerId),
    success: "Customer deleted",
    invalidate: [queryKeys.searches],
    onSuccess: () => router.push(dashboardPages.customers(programId)),
  });
  const matches = confirm.trim().toLowerCase() === email;
  return (
    <form
      className="space-y-2"
      aria-label="Delete customer"
      onSubmit={(e) => {
        e.preventDefault();
        if (matches) remove.submit();
      }}
    >
      <div className="rounded-md border border-red-200 bg-red-50 p-3">
        <h3 className="text-sm font-semibold text-red-900">Delete customer</h3>
        <p className="mt-1 text-xs text-red-900">
          Erases the personal data at once and for good; the anonymised points history stays in the program totals. Type{" "}
          <span className="break-all font-mono">{email}</span> to confirm.
        </p>
        <div className="mt-2 flex flex-wrap gap-2">
          <label htmlFor="confirm-delete" className="sr-only">
            Type the customer&apos;s e-mail to confirm
          </label>
          <input
            id="confirm-delete"
            value={confirm}
            onChange={(e) => setConfirm(e.target.value)}
            className={`${inputClass} min-w-0 flex-1`}
            autoComplete="off"
          />
          <button className={dangerButtonClass} disabled={!matches || remove.pending} type="submit">
            Delete permanently
          </button>
        </div>
      </div>
    </form>
  );
}
