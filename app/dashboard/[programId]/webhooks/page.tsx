import { openProgramSearchPage, type ProgramSearchPageProps } from "@/lib/staff/program-page";
import { can } from "@/lib/staff/authz";
import { DELIVERY_STATUSES } from "@/lib/domain/vocabulary";
import { deliveryPage, webhookSettings } from "@/lib/staff/queries/webhooks";
import {
  ActiveBadge,
  Badge,
  Card,
  Empty,
  FilterForm,
  FilterSelect,
  KeysetPager,
  Table,
  formatDate,
} from "@/components/ui";
import { PushEndpointForm } from "@/components/dashboard/webhooks/push-endpoint-form";
import { ResendButton, WebhookActiveButton } from "@/components/dashboard/webhooks/webhook-buttons";
import { WebhookForm } from "@/components/dashboard/webhooks/webhook-form";

export const metadata = { title: "Webhooks & push · Loyalty" };

const STATUS_TONE = { pending: "amber", delivered: "green", failed: "red", cancelled: "slate" } as const;
const pad = "px-2.5 py-2";
const td = `${pad} align-top`;

export default async function WebhooksPage(props: ProgramSearchPageProps<"status" | "after">) {
  const { programId, search, staff, database } = await openProgramSearchPage(props, "program.read");
  const manage = can(staff.role, "program.manage");
  const status = DELIVERY_STATUSES.find((s) => s === search.status);
  const [settings, log] = await Promise.all([
    webhookSettings(database, programId),
    deliveryPage(database, programId, { status, after: search.after }),
  ]);
  const actions = manage && { label: "Actions", hidden: true };
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Webhooks &amp; push</h1>
      <p className="text-sm text-slate-600">
        Events of the program are POSTed to every active webhook, and queued push notifications to the push endpoint,
        each signed with its endpoint&apos;s secret (header <code className="font-mono">loyalty-signature</code>).
        Failed attempts are retried with backoff for 24 hours.
      </p>
      {manage && <WebhookForm programId={programId} />}
      <Card title="Webhook endpoints">
        <Table
          label="Webhook endpoints"
          columns={[{ label: "URL" }, { label: "Created" }, { label: "Status" }, actions]}
          rows={settings.webhooks}
          empty={`No webhooks yet${manage ? ": add an endpoint above to receive the program's events." : "."}`}
          pad={pad}
          bleed={false}
        >
          {(w) => (
            <tr key={w.id}>
              <td className={`${td} min-w-48 break-all font-mono text-xs`}>{w.url}</td>
              <td className={`${td} whitespace-nowrap`}>{formatDate(w.createdAt)}</td>
              <td className={td}>
                <ActiveBadge active={w.active} inactive="disabled" />
              </td>
              {manage && (
                <td className={`${td} text-right`}>
                  <WebhookActiveButton programId={programId} webhookId={w.id} active={w.active} url={w.url} />
                </td>
              )}
            </tr>
          )}
        </Table>
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
        <FilterForm label="Filter the delivery log" filtered={!!status} className="mb-3">
          <FilterSelect name="status" label="Status" value={status ?? ""} all="All statuses">
            {DELIVERY_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </FilterSelect>
        </FilterForm>
        <Table
          label="Deliveries"
          columns={[
            { label: "Queued" },
            { label: "Event" },
            { label: "Target" },
            { label: "Status" },
            { label: "Attempts", align: "right" },
            { label: "Last result" },
            { label: "Next attempt" },
            actions,
          ]}
          rows={log.rows}
          empty={
            status
              ? `No ${status} deliveries.`
              : "No deliveries yet: they appear here once an event or push notification is queued for an endpoint."
          }
          pad={pad}
          bleed={false}
        >
          {(d) => (
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
                {!d.lastStatusCode && !d.lastError
                  ? d.deliveredAt
                    ? `delivered ${formatDate(d.deliveredAt)}`
                    : "—"
                  : null}
              </td>
              <td className={`${td} min-w-28`}>{d.status === "pending" ? formatDate(d.nextAttemptAt) : "—"}</td>
              {manage && (
                <td className={`${td} text-right`}>
                  <ResendButton programId={programId} deliveryId={d.id} />
                </td>
              )}
            </tr>
          )}
        </Table>
        <KeysetPager
          filters={status ? { status } : {}}
          after={search.after}
          next={log.next}
          className="mt-3 flex justify-between"
        />
      </Card>
    </div>
  );
}
