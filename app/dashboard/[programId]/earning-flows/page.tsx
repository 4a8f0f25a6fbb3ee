import { db } from "@/lib/db/client";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { earningFlows } from "@/lib/staff/queries/catalogue";
import { ActiveBadge, Card, Table, formatNumber, type Column } from "@/components/ui";
import { EarningFlowForm } from "@/components/dashboard/earning-flows/earning-flow-form";
import { EarningFlowActions } from "@/components/dashboard/earning-flows/earning-flow-actions";
import { describeFlowParam, storedFlowParams } from "@/lib/domain/flow-params";
import { describePendingOverride } from "@/lib/domain/pending-rules";

/** A flow's caps and once-only rule in words, one line each: three narrow columns would push the actions off. */
const limitsOf = (f: { capPerDay: number | null; capTotal: number | null; once: boolean }) => {
  const lines = [
    f.capPerDay !== null && `${formatNumber(f.capPerDay)} a day`,
    f.capTotal !== null && `${formatNumber(f.capTotal)} in total`,
    f.once && "once per customer",
  ].filter((line): line is string => typeof line === "string");
  return lines.length > 0 ? lines : ["none"];
};

const COLUMNS = (canManage: boolean): Column[] => [
  { label: "Key" },
  { label: "Earns" },
  { label: "Parameters" },
  { label: "Limits" },
  { label: "New points" },
  { label: "Status" },
  ...(canManage ? [{ label: "Actions", hidden: true }] : []),
];

export default async function EarningFlowsPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const flows = (await earningFlows(await db(), programId)).map((f) => ({
    ...f,
    declared: storedFlowParams(f.params),
  }));
  const canManage = can(staff.role, "program.manage");
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Earning flows</h1>
      <Card title="How customers earn points">
        <Table
          label="Earning flows"
          columns={COLUMNS(canManage)}
          rows={flows}
          empty={<>No earning flows yet: points are only added through the API&apos;s balance calls.</>}
        >
          {(f) => (
            <tr key={f.id} data-testid={`flow-${f.key}`}>
              <td className="px-4 py-2">
                <p className="whitespace-nowrap font-mono font-medium">{f.key}</p>
                {f.name && <p className="text-xs text-slate-600">{f.name}</p>}
              </td>
              <td className="whitespace-nowrap px-4 py-2 tabular-nums">
                {f.points !== null ? (
                  `${formatNumber(f.points)} points`
                ) : (
                  <>
                    {f.pointsPerUnit} points per <span className="font-mono">{f.param}</span>
                  </>
                )}
              </td>
              <td className="px-4 py-2 font-mono text-xs">
                {f.declared.length === 0
                  ? "—"
                  : f.declared.map((p) => (
                      <p key={p.name} className="whitespace-nowrap">
                        {describeFlowParam(p)}
                      </p>
                    ))}
              </td>
              <td className="px-4 py-2 text-xs tabular-nums">
                {limitsOf(f).map((line) => (
                  <p key={line} className="whitespace-nowrap">
                    {line}
                  </p>
                ))}
              </td>
              <td className="px-4 py-2 text-xs">
                {describePendingOverride({
                  pendingDays: f.pendingDays,
                  pending: f.pendingUntilConfirmed ? "until_confirmed" : null,
                })}
              </td>
              <td className="px-4 py-2">
                <ActiveBadge active={f.active} />
              </td>
              {canManage && (
                <td className="px-4 py-2">
                  <EarningFlowActions
                    programId={programId}
                    flow={{
                      id: f.id,
                      key: f.key,
                      name: f.name,
                      points: f.points,
                      pointsPerUnit: f.pointsPerUnit,
                      param: f.param,
                      declared: f.declared,
                      capPerDay: f.capPerDay,
                      capTotal: f.capTotal,
                      once: f.once,
                      pendingDays: f.pendingUntilConfirmed ? null : f.pendingDays,
                      pending: f.pendingUntilConfirmed ? "until_confirmed" : null,
                      active: f.active,
                      updatedAt: f.updatedAt,
                    }}
                  />
                </td>
              )}
            </tr>
          )}
        </Table>
        <p className="mt-3 text-xs text-slate-600">
          A deactivated flow refuses runs (404 earning_flow_not_found, as an unknown key) until it is activated again.
        </p>
      </Card>
      {canManage && <EarningFlowForm programId={programId} />}
    </div>
  );
}
