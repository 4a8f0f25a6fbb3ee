import Link from "next/link";
import { notFound } from "next/navigation";
import { db } from "@/lib/db/client";
import { isUuid } from "@/lib/ids";
import { requirePage } from "@/lib/staff/session";
import { deliveryWithPayload } from "@/lib/staff/queries/webhooks";
import { dashboardPages } from "@/lib/staff/urls";
import { DELIVERY_HEADER, SIGNATURE_HEADER } from "@/lib/domain/webhooks";
import { Badge, Card, formatDate } from "@/components/ui";
import { CodeBlock } from "@/components/api-reference/code-block";

export const metadata = { title: "Delivery · Loyalty" };

const STATUS_TONE = { pending: "amber", delivered: "green", failed: "red", cancelled: "slate" } as const;

/** One delivery of the log: where it goes, how its attempts went, and the exact JSON body its signature covers. */
export default async function DeliveryPage({ params }: { params: Promise<{ programId: string; deliveryId: string }> }) {
  const { programId, deliveryId } = await params;
  await requirePage(programId, "program.read");
  if (!isUuid(deliveryId)) notFound();
  const d = await deliveryWithPayload(await db(), programId, deliveryId);
  if (!d) notFound();
  const pretty = d.payload ? JSON.stringify(JSON.parse(d.payload), null, 2) : null;
  const facts: [string, React.ReactNode][] = [
    [
      "Event",
      <span key="e" className="font-mono">
        {d.eventType ?? d.kind}
      </span>,
    ],
    [
      "Target",
      <span key="t" className="break-all font-mono text-xs">
        {d.url}
      </span>,
    ],
    [
      "Status",
      <Badge key="s" tone={STATUS_TONE[d.status as keyof typeof STATUS_TONE] ?? "slate"}>
        {d.status}
      </Badge>,
    ],
    ["Attempts", d.attempts],
    ["Last result", d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : (d.lastError ?? "—")],
    ["Queued", formatDate(d.createdAt)],
    ["Delivered", d.deliveredAt ? formatDate(d.deliveredAt) : "—"],
    ["Next attempt", d.status === "pending" ? formatDate(d.nextAttemptAt) : "—"],
  ];
  return (
    <div className="space-y-4">
      <p className="text-sm">
        <Link href={dashboardPages.webhooks(programId)} className="text-indigo-700 underline">
          ← Webhooks &amp; push
        </Link>
      </p>
      <h1 className="text-2xl font-bold">Delivery</h1>
      <p className="break-all font-mono text-xs text-slate-600">{d.id}</p>
      <Card title="Attempts">
        <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
          {facts.map(([term, value]) => (
            <div key={term} className="contents">
              <dt className="font-medium text-slate-700">{term}</dt>
              <dd className="min-w-0">{value}</dd>
            </div>
          ))}
        </dl>
      </Card>
      <Card title="Payload">
        {d.payload ? (
          <>
            <p className="text-sm text-slate-700">
              The exact body POSTed (as <code className="font-mono">application/json</code>) on every attempt. Its
              signature header <code className="font-mono">{SIGNATURE_HEADER}</code> is{" "}
              <code className="font-mono">t=&lt;unix seconds&gt;,v1=&lt;HMAC-SHA256&gt;</code> over{" "}
              <code className="font-mono">&lt;t&gt;.&lt;this body&gt;</code>, made anew at each attempt;{" "}
              <code className="font-mono">{DELIVERY_HEADER}</code> is the id above.
            </p>
            <h3 className="mt-3 text-sm font-semibold">Exact body (what the signature covers)</h3>
            <CodeBlock label="Exact body of the delivery" code={d.payload} wrap className="mt-1" />
            <h3 className="mt-3 text-sm font-semibold">The same, indented</h3>
            <CodeBlock label="Indented body of the delivery" code={pretty!} className="mt-1" />
          </>
        ) : (
          <p className="text-sm text-slate-600">
            A push delivery sends the notification itself; see the customer&apos;s notifications.
          </p>
        )}
      </Card>
    </div>
  );
}
