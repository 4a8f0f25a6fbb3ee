import type { RedemptionRow } from "@/lib/staff/queries/redemptions";
import { Card } from "@/components/ui";
import { RedemptionsTable } from "./redemptions-table";

/**
 * The customer page's Redemptions card: the customer's latest redemptions with code, reward, points and status, and
 * (for staff who may redeem) a Cancel button on those the program's cancel window still allows. The page loads the
 * rows with the rest of the profile, so a cancel or a redemption elsewhere on the page shows here once it refreshes.
 */
export function RedemptionsCard({
  programId,
  customerId,
  rows,
  canCancel,
}: {
  programId: string;
  customerId: string;
  rows: RedemptionRow[];
  canCancel: boolean;
}) {
  return (
    <Card title="Redemptions">
      <RedemptionsTable programId={programId} customerId={customerId} rows={rows} canCancel={canCancel} />
    </Card>
  );
}
