import { DeleteCustomerForm } from "./delete-customer-form";

/**
 * The customer page's destructive actions, apart from the routine ones and last in the page (on a phone too):
 * erasing the customer. Shown only to roles allowed to delete.
 */
export function DangerZone({ programId, customerId, email }: { programId: string; customerId: string; email: string }) {
  return (
    <section
      id="danger-zone"
      aria-label="Danger zone"
      className="scroll-mt-20 rounded-lg border border-red-300 bg-white shadow-sm"
    >
      <header className="border-b border-red-200 px-4 py-3">
        <h2 className="text-sm font-semibold text-red-900">Danger zone</h2>
      </header>
      <div className="p-4">
        <DeleteCustomerForm programId={programId} customerId={customerId} email={email} />
      </div>
    </section>
  );
}
