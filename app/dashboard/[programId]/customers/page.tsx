import Link from "next/link";
import { openProgramSearchPage, type ProgramSearchPageProps } from "@/lib/staff/program-page";
import { isUuid } from "@/lib/ids";
import { CUSTOMER_SORTS, SEARCH_LIMIT, searchCustomers, type CustomerSort } from "@/lib/staff/queries/customers/search";
import { programTiers } from "@/lib/staff/queries/catalogue";
import { PageExport } from "@/components/dashboard/exports/page-exports";
import { dashboardPages } from "@/lib/staff/urls";
import {
  Badge,
  Empty,
  FilterForm,
  FilterSelect,
  KeysetPager,
  ResponsiveCard,
  Table,
  formatDate,
  formatNumber,
  inputClass,
} from "@/components/ui";

export const metadata = { title: "Customers · Loyalty" };

const COLUMNS = [
  { label: "E-mail" },
  { label: "Name" },
  { label: "Tier" },
  { label: "Balance", align: "right" },
  { label: "Member since", className: "hidden sm:table-cell" },
] as const;

export default async function CustomersPage(props: ProgramSearchPageProps<"q" | "tier" | "sort" | "after">) {
  const { programId, staff, search, database } = await openProgramSearchPage(props, "customers.read");
  const sort: CustomerSort = CUSTOMER_SORTS.find((s) => s === search.sort) ?? "email";
  const tierId = isUuid(search.tier) ? search.tier : null;
  const [tiers, page] = await Promise.all([
    programTiers(database, programId),
    searchCustomers(database, programId, {
      q: search.q,
      tierId,
      sort,
      after: search.after,
      limit: search.q ? SEARCH_LIMIT : 25,
    }),
  ]);
  const filters = { ...(search.q ? { q: search.q } : {}), ...(tierId ? { tier: tierId } : {}), sort };
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-2xl font-bold">Customers</h1>
        <PageExport staff={staff} kind="customers" filter={{ q: search.q, tier: tierId }} />
      </div>
      <FilterForm role="search" submit="Search">
        <div className="min-w-56 flex-1">
          <label htmlFor="q" className="block text-sm font-medium text-slate-800">
            Find customers
          </label>
          <input
            id="q"
            name="q"
            type="search"
            aria-describedby="q-hint"
            defaultValue={search.q}
            placeholder="jane.doe@, Jane Doe, +34 612…"
            className={inputClass}
          />
          <p id="q-hint" className="mt-1 text-xs text-slate-600">
            By e-mail (or part of it), name, phone or external id.
          </p>
        </div>
        <FilterSelect name="tier" label="Tier" value={tierId ?? ""} all="All tiers">
          {tiers.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </FilterSelect>
        <FilterSelect name="sort" label="Sort" value={sort}>
          <option value="email">E-mail A→Z</option>
          <option value="newest">Newest first</option>
          <option value="balance">Highest balance</option>
        </FilterSelect>
      </FilterForm>
      {page.rows.length === 0 ? (
        <Empty>No customers match. Try part of the e-mail, the last name, or the phone’s last digits.</Empty>
      ) : (
        // Not a Card: the table fills its box edge to edge.
        <div className="overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm">
          {search.q && (
            <p className="border-b border-slate-200 px-4 py-2 text-xs text-slate-600">
              Best matches first (exact, then starts with, then contains; e-mail before phone before name)
              {page.rows.length >= SEARCH_LIMIT ? `: the first ${SEARCH_LIMIT}, type more to narrow them` : ""}.
            </p>
          )}
          <Table
            label="Customers"
            columns={COLUMNS}
            rows={page.rows}
            bleed={false}
            card={(c) => (
              <ResponsiveCard
                key={c.id}
                title={
                  <Link
                    href={dashboardPages.customer(programId, c.id)}
                    className="font-medium text-indigo-700 hover:underline"
                  >
                    {c.email}
                  </Link>
                }
                fields={[
                  { label: "Name", value: [c.firstName, c.lastName].filter(Boolean).join(" ") || "—" },
                  { label: "Tier", value: c.tier ?? "—" },
                  { label: "Balance", value: formatNumber(c.balance) },
                ]}
              />
            )}
          >
            {(c) => (
              <tr key={c.id} className="hover:bg-slate-50">
                <td className="px-4 py-2">
                  <Link
                    href={dashboardPages.customer(programId, c.id)}
                    className="font-medium text-indigo-700 hover:underline"
                  >
                    {c.email}
                  </Link>
                </td>
                <td className="px-4 py-2 text-slate-700">
                  {[c.firstName, c.lastName].filter(Boolean).join(" ") || "—"}
                </td>
                <td className="px-4 py-2">{c.tier ? <Badge tone="indigo">{c.tier}</Badge> : "—"}</td>
                <td className="px-4 py-2 text-right tabular-nums">{formatNumber(c.balance)}</td>
                <td className="hidden px-4 py-2 text-slate-600 sm:table-cell">{formatDate(c.createdAt)}</td>
              </tr>
            )}
          </Table>
        </div>
      )}
      <KeysetPager
        filters={filters}
        after={search.after}
        next={page.next}
        firstLabel="← First page"
        nextLabel="Next page →"
      />
    </div>
  );
}
