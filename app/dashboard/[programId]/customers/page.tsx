import Link from "next/link";
import { db } from "@/lib/db/client";
import { firstParams } from "@/lib/staff/search-params";
import { isUuid, requirePage } from "@/lib/staff/authz";
import { programTiers } from "@/lib/staff/queries/catalogue";
import { CUSTOMER_SORTS, searchCustomers, type CustomerSort } from "@/lib/staff/queries/customers";
import { Badge, Empty, buttonClass, formatDate, formatNumber, inputClass, secondaryButtonClass } from "@/components/ui";

type Search = Partial<Record<"q" | "tier" | "sort" | "after", string | string[]>>;

export const metadata = { title: "Customers · Loyalty" };

export default async function CustomersPage({ params, searchParams }: { params: Promise<{ programId: string }>; searchParams: Promise<Search> }) {
  const { programId } = await params;
  const search = await firstParams(searchParams);
  await requirePage(programId, "customers.read");
  const database = await db();
  const sort: CustomerSort = CUSTOMER_SORTS.find((s) => s === search.sort) ?? "email";
  const tierId = isUuid(search.tier) ? search.tier : null;
  const [tiers, page] = await Promise.all([
    programTiers(database, programId),
    searchCustomers(database, programId, { prefix: search.q, tierId, sort, after: search.after }),
  ]);
  const nextHref = page.next
    ? `?${new URLSearchParams({ ...(search.q ? { q: search.q } : {}), ...(tierId ? { tier: tierId } : {}), sort, after: page.next })}`
    : null;
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Customers</h1>
      <form className="flex flex-wrap items-end gap-3" role="search">
        <div className="min-w-56 flex-1">
          <label htmlFor="q" className="block text-sm font-medium text-slate-800">
            E-mail starts with
          </label>
          <input id="q" name="q" defaultValue={search.q} placeholder="jane.doe@" className={inputClass} />
        </div>
        <div>
          <label htmlFor="tier" className="block text-sm font-medium text-slate-800">
            Tier
          </label>
          <select id="tier" name="tier" defaultValue={tierId ?? ""} className={inputClass}>
            <option value="">All tiers</option>
            {tiers.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="sort" className="block text-sm font-medium text-slate-800">
            Sort
          </label>
          <select id="sort" name="sort" defaultValue={sort} className={inputClass}>
            <option value="email">E-mail A→Z</option>
            <option value="newest">Newest first</option>
            <option value="balance">Highest balance</option>
          </select>
        </div>
        <button className={buttonClass} type="submit">
          Search
        </button>
      </form>
      {page.rows.length === 0 ? (
        <Empty>No customers match. Try a shorter start of the e-mail.</Empty>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <thead className="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-700">
              <tr>
                <th scope="col" className="px-4 py-2">E-mail</th>
                <th scope="col" className="px-4 py-2">Name</th>
                <th scope="col" className="px-4 py-2">Tier</th>
                <th scope="col" className="px-4 py-2 text-right">Balance</th>
                <th scope="col" className="hidden px-4 py-2 sm:table-cell">Member since</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {page.rows.map((c) => (
                <tr key={c.id} className="hover:bg-slate-50">
                  <td className="px-4 py-2">
                    <Link href={`/dashboard/${programId}/customers/${c.id}`} className="font-medium text-indigo-700 hover:underline">
                      {c.email}
                    </Link>
                  </td>
                  <td className="px-4 py-2 text-slate-700">{[c.firstName, c.lastName].filter(Boolean).join(" ") || "—"}</td>
                  <td className="px-4 py-2">{c.tier ? <Badge tone="indigo">{c.tier}</Badge> : "—"}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatNumber(c.balance)}</td>
                  <td className="hidden px-4 py-2 text-slate-600 sm:table-cell">{formatDate(c.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="flex justify-between" aria-label="Pagination">
        {search.after ? (
          <Link className={secondaryButtonClass} href={`?${new URLSearchParams({ ...(search.q ? { q: search.q } : {}), ...(tierId ? { tier: tierId } : {}), sort })}`}>
            ← First page
          </Link>
        ) : (
          <span />
        )}
        {nextHref && (
          <Link className={secondaryButtonClass} href={nextHref}>
            Next page →
          </Link>
        )}
      </nav>
    </div>
  );
}
