import Link from "next/link";
import { dashboardPages } from "@/lib/staff/urls";
import { formatDate, formatNumber } from "@/components/ui";
import type { CustomerData } from "./profile";

/** The customer page's breadcrumb, e-mail as the heading, name, membership and balance. */
export function CustomerHeading({ programId, customer }: { programId: string; customer: CustomerData }) {
  const name = [customer.userData.firstName, customer.userData.lastName].filter(Boolean).join(" ");
  return (
    <>
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link
          href={dashboardPages.customers(programId)}
          className="text-indigo-700 underline decoration-indigo-300 hover:decoration-indigo-700"
        >
          Customers
        </Link>{" "}
        <span aria-hidden="true" className="text-slate-500">
          /
        </span>{" "}
        <span className="text-slate-700">{name || customer.email}</span>
      </nav>
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 className="break-all text-2xl font-bold">{customer.email}</h1>
          <p className="text-sm text-slate-600">
            {name || "No name"} · member since {formatDate(customer.loyaltyData.memberSince)}
          </p>
        </div>
        <p className="text-3xl font-semibold tabular-nums" aria-label="Balance">
          {formatNumber(customer.loyaltyData.balance)}{" "}
          <span className="text-base font-normal text-slate-600">points</span>
        </p>
      </div>
    </>
  );
}
