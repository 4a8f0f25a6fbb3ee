import { openProgramSearchPage, type ProgramSearchPageProps } from "@/lib/staff/program-page";
import { AUDIT_ACTIONS } from "@/lib/staff/audit";
import { auditPage } from "@/lib/staff/queries/audit-log";
import { programStaff } from "@/lib/staff/queries/staff-accounts";
import { PageExport } from "@/components/dashboard/exports/page-exports";
import { Card, Empty, FilterForm, FilterSelect, KeysetPager, formatDate } from "@/components/ui";

export const metadata = { title: "Audit log · Loyalty" };

const snapshot = (value: unknown) => (value ? JSON.stringify(value, null, 1) : "—");

export default async function AuditPage(props: ProgramSearchPageProps<"action" | "staff" | "after">) {
  const { programId, staff: me, search, database } = await openProgramSearchPage(props, "audit.read");
  const action = AUDIT_ACTIONS.find((a) => a === search.action);
  const staffEmail = search.staff?.trim().toLowerCase() || undefined;
  const [page, staff] = await Promise.all([
    auditPage(database, programId, { action, staff: staffEmail, after: search.after }),
    programStaff(database, programId),
  ]);
  const filters = { ...(action ? { action } : {}), ...(staffEmail ? { staff: staffEmail } : {}) };
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-2xl font-bold">Audit log</h1>
        <PageExport staff={me} kind="audit-log" filter={filters} />
      </div>
      <p className="text-sm text-slate-600">
        Every change made in the dashboard: who, when, what, and the values before and after.
      </p>
      <FilterForm label="Filter the audit log" filtered={!!(action || staffEmail)}>
        <FilterSelect name="action" label="Action" value={action ?? ""} all="All actions">
          {AUDIT_ACTIONS.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </FilterSelect>
        <FilterSelect name="staff" label="Staff member" value={staffEmail ?? ""} all="Everyone">
          {staff.map((s) => (
            <option key={s.email} value={s.email}>
              {s.email} ({s.role})
            </option>
          ))}
        </FilterSelect>
      </FilterForm>
      <Card>
        {page.rows.length === 0 ? (
          <Empty>
            {action || staffEmail
              ? "No entries match these filters."
              : "Nothing recorded yet: changes made in the dashboard appear here."}
          </Empty>
        ) : (
          <ul className="divide-y divide-slate-100 text-sm" aria-label="Audit entries">
            {page.rows.map((r) => (
              <li key={r.id} className="py-3">
                <p className="flex flex-wrap items-baseline gap-x-2">
                  <span className="font-mono font-semibold text-indigo-800">{r.action}</span>
                  <span className="font-medium">{r.staffEmail}</span>
                  <span className="text-slate-600">
                    {r.entityType}{" "}
                    {r.entityId ? <span className="break-all font-mono text-xs">{r.entityId}</span> : null}
                  </span>
                  <time className="text-xs text-slate-600 sm:ml-auto" dateTime={r.createdAt.toISOString()}>
                    {formatDate(r.createdAt)}
                  </time>
                </p>
                <div className="mt-1 grid gap-2 md:grid-cols-2">
                  {(["Before", "After"] as const).map((side) => (
                    <div key={side}>
                      <p className="text-xs font-medium text-slate-600">{side}</p>
                      <pre className="overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 text-xs">
                        {snapshot(side === "Before" ? r.before : r.after)}
                      </pre>
                    </div>
                  ))}
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <KeysetPager filters={filters} after={search.after} next={page.next} />
    </div>
  );
}
