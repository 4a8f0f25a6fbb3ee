import Link from "next/link";
import type { ReferralRow } from "@/lib/domain/referrals";
import { dashboardPages } from "@/lib/staff/urls";
import { Badge, Card, ResponsiveCard, Table, formatDate, formatNumber } from "@/components/ui";
import type { CustomerProfile } from "./profile";

/** A customer of a referral: a link to their page, or "erased customer" once their personal data is gone. */
function Who({ programId, row }: { programId: string; row: ReferralRow }) {
  if (row.email === null) return <span className="text-slate-600">erased customer</span>;
  return (
    <Link className="text-indigo-700 underline" href={dashboardPages.customer(programId, row.customerId)}>
      {row.email}
    </Link>
  );
}

function Status({ row }: { row: ReferralRow }) {
  if (!row.completedAt) return <Badge tone="slate">waiting for a first earn</Badge>;
  return <Badge tone={row.capped ? "amber" : "green"}>{row.capped ? "completed, over the cap" : "completed"}</Badge>;
}

/**
 * The customer page's "Referrals" card: who referred this customer, with which code and whether it completed, and
 * the customers they referred (the 50 newest) with the points it earned them.
 */
export function ReferralsCard({
  programId,
  referrals: r,
}: {
  programId: string;
  referrals: CustomerProfile["referrals"];
}) {
  return (
    <Card title="Referrals">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-600">Own code</dt>
        <dd className="min-w-0">
          <span className="font-mono text-xs">{r.code ?? "—"}</span>
          {r.link && <span className="block break-all text-xs text-slate-700">{r.link}</span>}
        </dd>
        <dt className="text-slate-600">Referred by</dt>
        <dd>
          {r.referredBy ? (
            <span className="flex flex-wrap items-center gap-2">
              <Who programId={programId} row={r.referredBy} />
              <span className="font-mono text-xs">{r.referredBy.code}</span>
              <Status row={r.referredBy} />
            </span>
          ) : (
            "nobody"
          )}
        </dd>
        <dt className="text-slate-600">Referred</dt>
        <dd>
          {formatNumber(r.made)} customer{r.made === 1 ? "" : "s"}, {formatNumber(r.completed)} completed,{" "}
          {formatNumber(r.pointsEarned)} points earned
        </dd>
      </dl>
      {r.referred.length > 0 && (
        <div className="mt-3">
          <Table
            label="Customers referred"
            look="plain"
            columns={[
              { label: "Customer" },
              { label: "Referred" },
              { label: "Status" },
              { label: "Points", align: "right" },
            ]}
            rows={r.referred}
            card={(row) => (
              <ResponsiveCard
                key={row.id}
                title={<Who programId={programId} row={row} />}
                fields={[
                  { label: "Referred", value: formatDate(row.createdAt) },
                  { label: "Status", value: <Status row={row} /> },
                  { label: "Points", value: formatNumber(row.points) },
                ]}
              />
            )}
          >
            {(row) => (
              <tr key={row.id}>
                <td className="py-2 pr-4">
                  <Who programId={programId} row={row} />
                </td>
                <td className="whitespace-nowrap py-2 pr-4">{formatDate(row.createdAt)}</td>
                <td className="py-2 pr-4">
                  <Status row={row} />
                </td>
                <td className="py-2 text-right tabular-nums">{formatNumber(row.points)}</td>
              </tr>
            )}
          </Table>
        </div>
      )}
    </Card>
  );
}
