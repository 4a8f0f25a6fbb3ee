import { db } from "@/lib/db/client";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { programTiers } from "@/lib/staff/queries/catalogue";
import { Card, Table, formatNumber } from "@/components/ui";
import { TierForm } from "@/components/dashboard/tiers/tier-form";
import { TierActions } from "@/components/dashboard/tiers/tier-actions";

/** The tiers page: a read view for every role; managers and owners edit, remove and add tiers. */
export default async function TiersPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const tiers = await programTiers(await db(), programId);
  const canManage = can(staff.role, "program.manage");
  const columns = [
    { label: "Name" },
    { label: "Required points", align: "right" },
    { label: "Factor", align: "right" },
    { label: "Content" },
    canManage && { label: "Actions", hidden: true },
  ] as const;
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Tiers</h1>
      <Card title="Tiers by required points">
        <Table
          label="Tiers"
          look="plain"
          columns={columns}
          rows={tiers}
          empty="No tiers yet: every customer is tierless until you add one."
        >
          {(t) => (
            <tr key={t.id} data-testid={`tier-${t.name}`}>
              <td className="py-2 pr-4 font-medium">{t.name}</td>
              <td className="py-2 pr-4 text-right tabular-nums">{formatNumber(t.requiredPoints)}</td>
              <td className="py-2 pr-4 text-right tabular-nums">×{t.factor}</td>
              <td className="py-2 pr-4 text-slate-600">{t.content ?? "—"}</td>
              {canManage && (
                <td className="py-2">
                  <TierActions
                    programId={programId}
                    tier={{
                      id: t.id,
                      name: t.name,
                      requiredPoints: t.requiredPoints,
                      factor: t.factor,
                      content: t.content,
                      image: t.image,
                      updatedAt: t.updatedAt,
                    }}
                  />
                </td>
              )}
            </tr>
          )}
        </Table>
        <p className="mt-3 text-xs text-slate-600">
          Changing a threshold or removing a tier re-evaluates every customer at once: each holds the best of the tier
          its points of this period reach, the tier its points of the last period reach, and the lowest tier.
        </p>
      </Card>
      {canManage && <TierForm programId={programId} />}
    </div>
  );
}
