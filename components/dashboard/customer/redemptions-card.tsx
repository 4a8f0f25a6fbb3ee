import { db } from "@/lib/db/client";
import { customerRedemptions } from "@/lib/staff/queries/redemptions";
import { Card } from "@/components/ui";
import { RedemptionsTable } from "./redemptions-table";

/**
 * The customer page's Redemptions card: the customer's latest redemptions with code, reward, points and status, and
 * (for staff who may redeem) a Cancel button on those the program's cancel window still allows. A server component:
 * it loads its own rows, so a cancel or a redemption elsewhere on the page shows here once the page refreshes.
 */
export async function RedemptionsCard({
  programId,
  customerId,
  canCancel,
}: {
  programId: string;
  customerId: string;
  canCancel: boolean;
}) {
  const rows = await customerRedemptions(await db(), programId, customerId);
  return (
    <Card title="Redemptions">
      <RedemptionsTable programId={programId} customerId={customerId} rows={rows} canCancel={canCancel} />
    </Card>
  );
}
