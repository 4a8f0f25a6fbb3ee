import Link from "next/link";
import { openProgramSearchPage, type ProgramSearchPageProps } from "@/lib/staff/program-page";
import { AUDIT_ACTIONS } from "@/lib/staff/audit";
import { auditDiff, auditEntityHref, describeAudit, ENTITY_WORDS } from "@/lib/staff/audit-words";
import { FIRST_DAY, LAST_DAY } from "@/lib/staff/report-range";
import { EXPORT_FILTERS } from "@/lib/exports/kinds";
import { auditPage, type AuditFilter } from "@/lib/staff/queries/audit-log";
import { programStaff } from "@/lib/staff/queries/staff-accounts";
import { PageExport } from "@/components/dashboard/exports/page-exports";
import { Card, Empty, FilterForm, FilterInput, FilterSelect, KeysetPager, formatDate } from "@/components/ui";

export const metadata = { title: "Audit log · Loyalty" };

type Key = "action" | "staff" | "type" | "entity" | "from" | "to" | "after";

/** The query string as the export's filter; a filter that does not parse is dropped with its message. */
function filterOf(search: Partial<Record<Key, string>>): { filter: AuditFilter; problems: string[] } {
  const { after: _after, ...given } = search;
  const parsed = EXPORT_FILTERS["audit-log"].safeParse(given);
  if (parsed.success) return { filter: parsed.data, problems: [] };
  const bad = new Set(parsed.error.issues.map((i) => String(i.path[0] ?? "")));
  const kept = Object.fromEntries(Object.entries(given).filter(([k]) => !bad.has(k)));
  const again = EXPORT_FILTERS["audit-log"].safeParse(kept);
  return {
    filter: again.success ? again.data : {},
    problems: parsed.error.issues.map((i) => `${String(i.path[0] ?? "filter")} ${i.message} (ignored)`),
  };
}

export default async function AuditPage(props: ProgramSearchPageProps<Key>) {
  const { programId, staff: me, search, database } = await openProgramSearchPage(props, "audit.read");
  const { filter, problems } = filterOf(search);
  const action = AUDIT_ACTIONS.find((a) => a === filter.action);
  const [page, staff] = await Promise.all([
    auditPage(database, programId, { ...filter, action }, search.after),
    programStaff(database, programId),
  ]);
  const filters = Object.fromEntries(Object.entries({ ...filter, action }).filter(([, v]) => !!v)) as Record<
    string,
    string
  >;
  const filtered = Object.keys(filters).length > 0;
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-2xl font-bold">Audit log</h1>
        <PageExport staff={me} kind="audit-log" filter={filters} />
      </div>
      <p className="text-sm text-slate-600">
        Every change made in the dashboard: who, when, what changed (before → after). Secrets are never shown.
      </p>
      <FilterForm label="Filter the audit log" filtered={filtered}>
        <FilterInput name="from" label="From" type="date" value={filter.from ?? ""} min={FIRST_DAY} max={LAST_DAY} />
        <FilterInput name="to" label="To" type="date" value={filter.to ?? ""} min={FIRST_DAY} max={LAST_DAY} />
        <FilterSelect name="staff" label="Staff member" value={filter.staff ?? ""} all="Everyone">
          {staff.map((s) => (
            <option key={s.email} value={s.email}>
              {s.email} ({s.role})
            </option>
          ))}
        </FilterSelect>
        <FilterSelect name="action" label="Action" value={action ?? ""} all="All actions">
          {AUDIT_ACTIONS.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </FilterSelect>
        <FilterSelect name="type" label="Entity" value={filter.type ?? ""} all="All entities">
          {Object.entries(ENTITY_WORDS).map(([type, words]) => (
            <option key={type} value={type}>
              {words}
            </option>
          ))}
        </FilterSelect>
        <FilterInput name="entity" label="Entity id" value={filter.entity ?? ""} placeholder="any" />
      </FilterForm>
      {problems.length > 0 && (
        <p role="alert" className="text-sm text-red-700">
          {problems.join("; ")}
        </p>
      )}
      <Card>
        {page.rows.length === 0 ? (
          <Empty>
            {filtered
              ? "No entries match these filters."
              : "Nothing recorded yet: changes made in the dashboard appear here."}
          </Empty>
        ) : (
          <ul className="divide-y divide-slate-100 text-sm" aria-label="Audit entries">
            {page.rows.map((r) => {
              const changes = auditDiff(r.before, r.after);
              const href = auditEntityHref(programId, r.entityType, r.entityId);
              return (
                <li key={r.id} className="space-y-1 py-3">
                  <p className="flex flex-wrap items-baseline gap-x-2">
                    <span className="font-medium">{describeAudit(r)}</span>
                    <time className="text-xs text-slate-600 sm:ml-auto" dateTime={r.createdAt.toISOString()}>
                      {formatDate(r.createdAt)}
                    </time>
                  </p>
                  <p className="flex flex-wrap gap-x-3 text-xs text-slate-600">
                    <span className="font-mono">{r.action}</span>
                    {href && (
                      <Link href={href} className="text-indigo-700 underline">
                        Open {ENTITY_WORDS[r.entityType] ?? r.entityType}
                      </Link>
                    )}
                    {r.entityId && (
                      <Link
                        href={`?${new URLSearchParams({ type: r.entityType, entity: r.entityId })}`}
                        className="text-indigo-700 underline"
                      >
                        Its history
                      </Link>
                    )}
                  </p>
                  {changes.length > 0 && (
                    <table className="w-full table-fixed text-xs" aria-label="Changes">
                      <thead className="text-left text-slate-600">
                        <tr>
                          <th className="w-1/5 py-1 font-medium">Field</th>
                          <th className="py-1 font-medium">Before</th>
                          <th className="py-1 font-medium">After</th>
                        </tr>
                      </thead>
                      <tbody>
                        {changes.map((c) => (
                          <tr key={c.key} className="align-top">
                            <th scope="row" className="break-all py-1 pr-2 text-left font-mono font-normal">
                              {c.key}
                            </th>
                            <td className="break-all py-1 pr-2">
                              <del className="rounded bg-red-50 px-1 text-red-900 no-underline">{c.before}</del>
                            </td>
                            <td className="break-all py-1">
                              <ins className="rounded bg-green-50 px-1 text-green-900 no-underline">{c.after}</ins>
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </Card>
      <KeysetPager filters={filters} after={search.after} next={page.next} />
    </div>
  );
}
