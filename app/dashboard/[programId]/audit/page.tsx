import Link from "next/link";
import { db } from "@/lib/db/client";
import { requirePage } from "@/lib/staff/session";
import { auditPage } from "@/lib/staff/queries";
import { Card, Empty, buttonClass, formatDate, inputClass, secondaryButtonClass } from "@/components/ui";

const ACTIONS = ["customer.update", "customer.delete", "balance.adjust", "reward.redeem", "coupon.assign", "notification.send", "tier.create", "apikey.create", "apikey.revoke"];

export default async function AuditPage({ params, searchParams }: { params: Promise<{ programId: string }>; searchParams: Promise<{ action?: string; staff?: string; before?: string }> }) {
  const { programId } = await params;
  const search = await searchParams;
  await requirePage(programId, "audit.read");
  const action = ACTIONS.includes(search.action ?? "") ? search.action : undefined;
  const before = search.before && !Number.isNaN(Date.parse(search.before)) ? search.before : null;
  const page = await auditPage(await db(), programId, { action, staff: search.staff, before });
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Audit log</h1>
      <form className="flex flex-wrap items-end gap-3">
        <div>
          <label htmlFor="action" className="block text-sm font-medium text-slate-800">Action</label>
          <select id="action" name="action" defaultValue={action ?? ""} className={inputClass}>
            <option value="">All actions</option>
            {ACTIONS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="staff" className="block text-sm font-medium text-slate-800">Staff e-mail starts with</label>
          <input id="staff" name="staff" defaultValue={search.staff} className={inputClass} />
        </div>
        <button className={buttonClass} type="submit">Filter</button>
      </form>
      <Card>
        {page.rows.length === 0 ? (
          <Empty>Nothing recorded yet.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100 text-sm">
            {page.rows.map((r) => (
              <li key={r.id} className="py-3">
                <p>
                  <span className="font-medium">{r.staffEmail}</span> · <span className="font-mono">{r.action}</span> · {r.entityType} {r.entityId ? <span className="font-mono text-xs">{r.entityId}</span> : null}
                </p>
                <p className="text-xs text-slate-600">{formatDate(r.createdAt)}</p>
                <div className="mt-1 grid gap-2 md:grid-cols-2">
                  <pre className="overflow-x-auto rounded bg-slate-50 p-2 text-xs" aria-label="Before">{r.before ? JSON.stringify(r.before, null, 1) : "—"}</pre>
                  <pre className="overflow-x-auto rounded bg-slate-50 p-2 text-xs" aria-label="After">{r.after ? JSON.stringify(r.after, null, 1) : "—"}</pre>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>
      {page.next && (
        <Link className={secondaryButtonClass} href={`?${new URLSearchParams({ ...(action ? { action } : {}), ...(search.staff ? { staff: search.staff } : {}), before: page.next })}`}>
          Older →
        </Link>
      )}
    </div>
  );
}
