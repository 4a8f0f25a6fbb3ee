import Link from "next/link";
import { db } from "@/lib/db/client";
import { can, requirePage } from "@/lib/staff/authz";
import { DELIVERY_STATUSES } from "@/lib/domain/vocabulary";
import { deliveryPage, webhookSettings } from "@/lib/staff/queries/webhooks";
import { firstParams } from "@/lib/staff/search-params";
import { Badge, Card, Empty, buttonClass, formatDate, inputClass, secondaryButtonClass, TableScroll } from "@/components/ui";
import { PushEndpointForm, ResendButton, WebhookActiveButton, WebhookForm } from "@/components/dashboard/people-forms";

export const metadata = { title: "Webhooks & push · Loyalty" };

type Search = Partial<Record<"status" | "after", string | string[]>>;

const STATUS_TONE = { pending: "amber", delivered: "green", failed: "red", cancelled: "slate" } as const;
const th = "px-2.5 py-2 whitespace-nowrap";
const td = "px-2.5 py-2 align-top";

export default async function WebhooksPage({ params, searchParams }: { params: Promise<{ programId: string }>; searchParams: Promise<Search> }) {
  const { programId } = await params;
  const search = await firstParams(searchParams);
  const staff = await requirePage(programId, "program.read");
  const manage = can(staff.role, "program.manage");
  const database = await db();
  const status = DELIVERY_STATUSES.find((s) => s === search.status);
  const [settings, log] = await Promise.all([webhookSettings(database, programId), deliveryPage(database, programId, { status, after: search.after })]);
  const filters: Record<string, string> = status ? { status } : {};
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Webhooks &amp; push</h1>
      <p className="text-sm text-slate-600">
        Events of the program are POSTed to every active webhook, and queued push notifications to the push endpoint, each signed with its
        endpoint&apos;s secret (header <code className="font-mono">loyalty-signature</code>). Failed attempts are retried with backoff for 24 hours.
      </p>
      {manage && <WebhookForm programId={programId} />}
      <Card title="Webhook endpoints">
        {settings.webhooks.length === 0 ? (
          <Empty>No webhooks yet{manage ? ": add an endpoint above to receive the program's events." : "."}</Empty>
        ) : (
          <TableScroll bleed={false}>
            <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Webhook endpoints">
              <thead className="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-700">
                <tr>
                  <th scope="col" className={th}>URL</th>
                  <th scope="col" className={th}>Created</th>
                  <th scope="col" className={th}>Status</th>
                  {manage && (
                    <th scope="col" className={th}>
                      <span className="sr-only">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {settings.webhooks.map((w) => (
                  <tr key={w.id}>
                    <td className={`${td} min-w-48 break-all font-mono text-xs`}>{w.url}</td>
                    <td className={`${td} whitespace-nowrap`}>{formatDate(w.createdAt)}</td>
                    <td className={td}>{w.active ? <Badge tone="green">active</Badge> : <Badge>disabled</Badge>}</td>
                    {manage && (
                      <td className={`${td} text-right`}>
                        <WebhookActiveButton programId={programId} webhookId={w.id} active={w.active} url={w.url} />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Card>
      <Card title="Push endpoint">
        {manage ? (
          <PushEndpointForm programId={programId} current={settings.pushEndpointUrl} />
        ) : settings.pushEndpointUrl ? (
          <p className="break-all font-mono text-sm">{settings.pushEndpointUrl}</p>
        ) : (
          <Empty>No push endpoint: push notifications are recorded but not sent anywhere.</Empty>
        )}
      </Card>
      <Card title="Delivery log">
        <form className="mb-3 flex flex-wrap items-end gap-3" aria-label="Filter the delivery log">
          <div>
            <label htmlFor="status" className="block text-sm font-medium text-slate-800">
              Status
            </label>
            <select id="status" name="status" defaultValue={status ?? ""} className={inputClass}>
              <option value="">All statuses</option>
              {DELIVERY_STATUSES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </div>
          <button className={buttonClass} type="submit">
            Filter
          </button>
          {status && (
            <Link href="?" className={secondaryButtonClass}>
              Clear
            </Link>
          )}
        </form>
        {log.rows.length === 0 ? (
          <Empty>{status ? `No ${status} deliveries.` : "No deliveries yet: they appear here once an event or push notification is queued for an endpoint."}</Empty>
        ) : (
          <TableScroll bleed={false}>
            <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Deliveries">
              <thead className="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-700">
                <tr>
                  <th scope="col" className={th}>Queued</th>
                  <th scope="col" className={th}>Event</th>
                  <th scope="col" className={th}>Target</th>
                  <th scope="col" className={th}>Status</th>
                  <th scope="col" className={`${th} text-right`}>Attempts</th>
                  <th scope="col" className={th}>Last result</th>
                  <th scope="col" className={th}>Next attempt</th>
                  {manage && (
                    <th scope="col" className={th}>
                      <span className="sr-only">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {log.rows.map((d) => (
                  <tr key={d.id}>
                    <td className={`${td} min-w-28`}>{formatDate(d.createdAt)}</td>
                    <td className={`${td} whitespace-nowrap font-mono text-xs`}>{d.eventType}</td>
                    <td className={td}>
                      <Badge tone={d.kind === "push" ? "indigo" : "slate"}>{d.kind}</Badge>
                      <span className="mt-1 block min-w-40 max-w-72 break-all font-mono text-xs">{d.url}</span>
                    </td>
                    <td className={td}>
                      <Badge tone={STATUS_TONE[d.status as keyof typeof STATUS_TONE] ?? "slate"}>{d.status}</Badge>
                    </td>
                    <td className={`${td} text-right tabular-nums`}>{d.attempts}</td>
                    <td className={`${td} max-w-64 text-xs`}>
                      {d.lastStatusCode ? <span className="font-mono">HTTP {d.lastStatusCode}</span> : null}
                      {d.lastError && !(d.lastStatusCode && d.lastError === `HTTP ${d.lastStatusCode}`) ? (
                        <span className="block break-words text-red-800">{d.lastError}</span>
                      ) : null}
                      {!d.lastStatusCode && !d.lastError ? (d.deliveredAt ? `delivered ${formatDate(d.deliveredAt)}` : "—") : null}
                    </td>
                    <td className={`${td} min-w-28`}>{d.status === "pending" ? formatDate(d.nextAttemptAt) : "—"}</td>
                    {manage && (
                      <td className={`${td} text-right`}>
                        <ResendButton programId={programId} deliveryId={d.id} />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
        <nav className="mt-3 flex justify-between" aria-label="Pagination">
          {search.after ? (
            <Link className={secondaryButtonClass} href={`?${new URLSearchParams(filters)}`}>
              ← Newest
            </Link>
          ) : (
            <span />
          )}
          {log.next && (
            <Link className={secondaryButtonClass} href={`?${new URLSearchParams({ ...filters, after: log.next })}`}>
              Older →
            </Link>
          )}
        </nav>
      </Card>
    </div>
  );
}
