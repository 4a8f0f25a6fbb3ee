import Link from "next/link";
import { db } from "@/lib/db/client";
import { firstParams } from "@/lib/staff/search-params";
import { requirePage } from "@/lib/staff/authz";
import { AUDIT_ACTIONS } from "@/lib/staff/audit";
import { auditPage } from "@/lib/staff/queries/audit-log";
import { programStaff } from "@/lib/staff/queries/staff-accounts";
import { Card, Empty, buttonClass, formatDate, inputClass, secondaryButtonClass } from "@/components/ui";

export const metadata = { title: "Audit log · Loyalty" };

type Search = Partial<Record<"action" | "staff" | "after", string | string[]>>;

export default async function AuditPage({ params, searchParams }: { params: Promise<{ programId: string }>; searchParams: Promise<Search> }) {
  const { programId } = await params;
  const search = await firstParams(searchParams);
  await requirePage(programId, "audit.read");
  const database = await db();
  const action = AUDIT_ACTIONS.find((a) => a === search.action);
  const staffEmail = search.staff?.trim().toLowerCase() || undefined;
  const [page, staff] = await Promise.all([auditPage(database, programId, { action, staff: staffEmail, after: search.after }), programStaff(database, programId)]);
  const filters = { ...(action ? { action } : {}), ...(staffEmail ? { staff: staffEmail } : {}) };
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Audit log</h1>
      <p className="text-sm text-slate-600">Every change made in the dashboard: who, when, what, and the values before and after.</p>
      <form className="flex flex-wrap items-end gap-3" aria-label="Filter the audit log">
        <div>
          <label htmlFor="action" className="block text-sm font-medium text-slate-800">
            Action
          </label>
          <select id="action" name="action" defaultValue={action ?? ""} className={inputClass}>
            <option value="">All actions</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="staff" className="block text-sm font-medium text-slate-800">
            Staff member
          </label>
          <select id="staff" name="staff" defaultValue={staffEmail ?? ""} className={inputClass}>
            <option value="">Everyone</option>
            {staff.map((s) => (
              <option key={s.email} value={s.email}>
                {s.email} ({s.role})
              </option>
            ))}
          </select>
        </div>
        <button className={buttonClass} type="submit">
          Filter
        </button>
        {(action || staffEmail) && (
          <Link href="?" className={secondaryButtonClass}>
            Clear
          </Link>
        )}
      </form>
      <Card>
        {page.rows.length === 0 ? (
          <Empty>{action || staffEmail ? "No entries match these filters." : "Nothing recorded yet: changes made in the dashboard appear here."}</Empty>
        ) : (
          <ul className="divide-y divide-slate-100 text-sm" aria-label="Audit entries">
            {page.rows.map((r) => (
              <li key={r.id} className="py-3">
                <p className="flex flex-wrap items-baseline gap-x-2">
                  <span className="font-mono font-semibold text-indigo-800">{r.action}</span>
                  <span className="font-medium">{r.staffEmail}</span>
                  <span className="text-slate-600">
                    {r.entityType} {r.entityId ? <span className="break-all font-mono text-xs">{r.entityId}</span> : null}
                  </span>
                  <time className="text-xs text-slate-600 sm:ml-auto" dateTime={r.createdAt.toISOString()}>
                    {formatDate(r.createdAt)}
                  </time>
                </p>
                <div className="mt-1 grid gap-2 md:grid-cols-2">
                  <div>
                    <p className="text-xs font-medium text-slate-600">Before</p>
                    <pre className="overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 text-xs">{r.before ? JSON.stringify(r.before, null, 1) : "—"}</pre>
                  </div>
                  <div>
                    <p className="text-xs font-medium text-slate-600">After</p>
                    <pre className="overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 text-xs">{r.after ? JSON.stringify(r.after, null, 1) : "—"}</pre>
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <nav className="flex justify-between" aria-label="Pagination">
        {search.after ? (
          <Link className={secondaryButtonClass} href={`?${new URLSearchParams(filters)}`}>
            ← Newest
          </Link>
        ) : (
          <span />
        )}
        {page.next && (
          <Link className={secondaryButtonClass} href={`?${new URLSearchParams({ ...filters, after: page.next })}`}>
            Older →
          </Link>
        )}
      </nav>
    </div>
  );
}
