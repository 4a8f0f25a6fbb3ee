import { db } from "@/lib/db/client";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { programRewards, programTiers } from "@/lib/staff/queries/catalogue";
import { Card, Empty } from "@/components/ui";
import { RewardForm } from "@/components/dashboard/rewards/reward-form";
import { RewardsTable } from "@/components/dashboard/rewards/rewards-table";

export default async function RewardsPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const database = await db();
  const [rewards, tiers] = await Promise.all([programRewards(database, programId), programTiers(database, programId)]);
  const canManage = can(staff.role, "program.manage");
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Rewards</h1>
      <Card title="Rewards customers can redeem">
        {rewards.length === 0 ? (
          <Empty>No rewards yet.{canManage ? " Create the first one below." : ""}</Empty>
        ) : (
          <RewardsTable
            programId={programId}
            canManage={canManage}
            tiers={tiers.map((t) => ({ id: t.id, name: t.name }))}
            rewards={rewards.map((r) => ({
              id: r.id,
              name: r.name,
              description: r.description,
              image: r.image,
              updatedAt: r.updatedAt,
              perCustomerLimit: r.perCustomerLimit,
              minTierId: r.minTierId,
              costPoints: r.costPoints,
              stock: r.stock,
              active: r.active,
              redemptions: r.redemptions,
            }))}
          />
        )}
      </Card>
      {canManage && <RewardForm programId={programId} />}
    </div>
  );
}
