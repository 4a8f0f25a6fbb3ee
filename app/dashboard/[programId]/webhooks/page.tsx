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
import { ResendButton, TestEventButton, WebhookActiveButton } from "@/components/dashboard/webhooks/webhook-buttons";
import { RotateSecretForm, WebhookSubscriptionsForm } from "@/components/dashboard/webhooks/webhook-settings";
import Link from "next/link";
import { dashboardPages } from "@/lib/staff/urls";
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
        Events of the program are POSTed to every active webhook that subscribes to them, and queued push notifications
        to the push endpoint, each signed with its endpoint&apos;s secret (header{" "}
        <code className="font-mono">loyalty-signature</code>). Failed attempts are retried with backoff for 24 hours.
        Open a delivery to see the exact JSON it sends.
      </p>
      {manage && <WebhookForm programId={programId} />}
      <Card title="Webhook endpoints">
        {settings.webhooks.length === 0 ? (
          <Empty>No webhooks yet{manage ? ": add an endpoint above to receive the program's events." : "."}</Empty>
        ) : (
          <ul className="divide-y divide-slate-100" aria-label="Webhook endpoints">
            {settings.webhooks.map((w) => (
              <li key={w.id} className="py-3 text-sm">
                <div className="flex flex-wrap items-start justify-between gap-2">
                  <div className="min-w-0">
                    <p className="break-all font-mono text-xs">{w.url}</p>
                    <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-600">
                      <ActiveBadge active={w.active} inactive="disabled" />
                      <span>added {formatDate(w.createdAt)}</span>
                      {w.previousSecretValidUntil && (
                        <span>· old secret valid until {formatDate(w.previousSecretValidUntil)}</span>
                      )}
                    </p>
                    <p className="mt-1 text-xs text-slate-700">
                      Events:{" "}
                      {w.eventTypes.length === 0 ? (
                        "every event"
                      ) : (
                        <span className="font-mono">{w.eventTypes.join(", ")}</span>
                      )}
                    </p>
                  </div>
                  {manage && (
                    <div className="flex flex-wrap gap-2">
                      {w.active && <TestEventButton programId={programId} webhookId={w.id} url={w.url} />}
                      <WebhookActiveButton
                        programId={programId}
                        webhookId={w.id}
                        active={w.active}
                        url={w.url}
                        version={w.updatedAt}
                      />
                    </div>
                  )}
                </div>
                {manage && (
                  <>
                    <WebhookSubscriptionsForm
                      programId={programId}
                      webhookId={w.id}
                      url={w.url}
                      eventTypes={w.eventTypes}
                      version={w.updatedAt}
                    />
                    <RotateSecretForm programId={programId} webhookId={w.id} url={w.url} />
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title="Push endpoint">
        {manage ? (
          <PushEndpointForm
            programId={programId}
            current={settings.pushEndpointUrl}
            version={settings.programVersion ?? undefined}
          />
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
              <td className={`${td} whitespace-nowrap font-mono text-xs`}>
                {d.kind === "webhook" ? (
                  <Link
                    href={dashboardPages.delivery(programId, d.id)}
                    className="text-indigo-700 underline"
                    aria-label={`Payload of ${d.eventType} delivery ${formatDate(d.createdAt)}`}
                  >
                    {d.eventType}
                  </Link>
                ) : (
                  d.eventType
                )}
              </td>
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
