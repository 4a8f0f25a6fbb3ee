import type { PointsPolicy } from "@/lib/domain/points-policy";
import { describeExpiry } from "@/lib/domain/expiry-rules";
import { describePending } from "@/lib/domain/pending-rules";
import { Card } from "@/components/ui";
import { DefinitionList } from "@/components/dashboard/edit-drawer";
import { PointsPolicyDrawer } from "./points-policy-form";

/**
 * The settings page's "Points: pending and expiry" card: pending points and the expiry policy (API.md §4); managers
 * and owners edit them. States what a change does: it applies to points earned after it.
 */
export function PointsPolicyCard({
  programId,
  policy,
  canEdit,
}: {
  programId: string;
  policy: PointsPolicy;
  canEdit: boolean;
}) {
  const { pointsExpiryMonths: _months, ...form } = policy;
  return (
    <Card
      title="Points: pending and expiry"
      actions={canEdit && <PointsPolicyDrawer programId={programId} settings={form} />}
    >
      <DefinitionList
        items={[
          ["New points", describePending(policy)],
          ["Points expire", describeExpiry(policy)],
          [
            "Expiry warning (points.expiring)",
            policy.expiryWarningDays === null ? "none" : `${policy.expiryWarningDays} days before`,
          ],
        ]}
      />
      <p className="mt-3 text-sm text-slate-600">
        A change applies to points earned after it: points already earned keep the pending period and expiry they were
        given. Pending points count toward tiers when they mature unless you choose otherwise, so that points an order
        refund may still cancel do not upgrade a tier.
      </p>
    </Card>
  );
}
