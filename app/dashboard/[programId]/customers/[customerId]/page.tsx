import { notFound } from "next/navigation";
import { db } from "@/lib/db/client";
import { isUuid } from "@/lib/ids";
import { can, requirePage } from "@/lib/staff/authz";
import { customerProfile } from "@/lib/staff/queries/customers";
import { programAdjustCeilings } from "@/lib/domain/programs";
import { ceilingFor, ceilingRule } from "@/lib/domain/adjustment-ceilings";
import { CouponsCard, NotificationsCard, RedemptionsCard } from "@/components/dashboard/customer/activity-cards";
import { CustomerActions } from "@/components/dashboard/customer/customer-actions";
import { CustomerHeading } from "@/components/dashboard/customer/customer-heading";
import { HistoryCard } from "@/components/dashboard/customer/history-card";
import { LoyaltyDataCard, NotificationPreferencesCard } from "@/components/dashboard/customer/loyalty-data-card";
import { TierCard } from "@/components/dashboard/customer/tier-card";
import { UserDataForm } from "@/components/dashboard/customer/user-data-form";

export const metadata = { title: "Customer · Loyalty" };

/** One customer: loads everything the cards show in one place, then lays the cards out. */
export default async function CustomerPage({ params }: { params: Promise<{ programId: string; customerId: string }> }) {
  const { programId, customerId } = await params;
  const staff = await requirePage(programId, "customers.read");
  if (!isUuid(customerId)) notFound();
  const [profile, ceilings] = await Promise.all([
    customerProfile(await db(), programId, customerId),
    programAdjustCeilings(await db(), programId),
  ]);
  if (!profile) notFound();
  const { customer } = profile;
  const allowed = (permission: Parameters<typeof can>[1]) => can(staff.role, permission);

  return (
    <div className="space-y-6">
      <CustomerHeading programId={programId} customer={customer} />

      <div className="grid gap-4 lg:grid-cols-3">
        <TierCard customer={customer} tiers={profile.tiers} />
        <LoyaltyDataCard customer={customer} />
        <NotificationPreferencesCard customer={customer} />
      </div>

      <div className="grid gap-4 lg:grid-cols-2">
        <UserDataForm
          programId={programId}
          customerId={customerId}
          email={customer.email}
          userData={customer.userData}
          canEdit={allowed("customers.edit")}
        />
        <CustomerActions
          programId={programId}
          customerId={customerId}
          email={customer.email}
          rewards={profile.rewards}
          pools={profile.pools}
          adjustLimit={{ ceiling: ceilingFor(staff.role, ceilings), rule: ceilingRule(staff.role, ceilings) }}
          can={{
            adjust: allowed("balance.adjust"),
            redeem: allowed("rewards.redeem"),
            assign: allowed("coupons.assign"),
            notify: allowed("notifications.send"),
            delete: allowed("customers.delete"),
          }}
        />
      </div>

      <HistoryCard programId={programId} customerId={customerId} initial={profile.history} />

      <div className="grid gap-4 lg:grid-cols-3">
        <RedemptionsCard redemptions={profile.redemptions} />
        <CouponsCard coupons={profile.coupons} />
        <NotificationsCard notifications={profile.notifications} />
      </div>
    </div>
  );
}
