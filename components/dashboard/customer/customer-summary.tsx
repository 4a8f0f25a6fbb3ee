import { formatNumber } from "@/components/ui";
import type { CustomerData } from "./profile";

/** Where the summary's links jump to: the customer page's sections (ids set by the page). */
export const CUSTOMER_SECTIONS = [
  ["actions", "Actions"],
  ["history", "History"],
  ["profile", "Profile"],
  ["danger-zone", "Danger zone"],
] as const;

/**
 * The customer page's compact summary on a phone (hidden from `md` up, where the cards beside each other show the
 * same): tier, points this period, available balance, and links to the page's sections, so the first screen
 * answers "who is this and where do I act" without scrolling through every card.
 */
export function CustomerSummary({ customer, sections }: { customer: CustomerData; sections: readonly string[] }) {
  const ct = customer.customerTier;
  return (
    <section aria-label="Summary" className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm md:hidden">
      <dl className="grid grid-cols-3 gap-2 text-center text-sm">
        <div>
          <dt className="text-xs text-slate-600">Tier</dt>
          <dd className="truncate font-semibold">{ct.currentTier?.name ?? "No tier"}</dd>
        </div>
        <div>
          <dt className="text-xs text-slate-600">This period</dt>
          <dd className="font-semibold tabular-nums">{formatNumber(ct.currentTierPoints)}</dd>
        </div>
        <div>
          <dt className="text-xs text-slate-600">Balance</dt>
          <dd className="font-semibold tabular-nums">{formatNumber(customer.loyaltyData.balance)}</dd>
        </div>
      </dl>
      <nav aria-label="Sections" className="mt-3 flex flex-wrap gap-2 border-t border-slate-100 pt-3 text-sm">
        {CUSTOMER_SECTIONS.filter(([id]) => sections.includes(id)).map(([id, label]) => (
          <a
            key={id}
            href={`#${id}`}
            className={
              id === "danger-zone"
                ? "rounded-md px-2 py-1 text-red-800 underline"
                : "rounded-md bg-slate-100 px-2 py-1 text-indigo-800"
            }
          >
            {label}
          </a>
        ))}
      </nav>
    </section>
  );
}
