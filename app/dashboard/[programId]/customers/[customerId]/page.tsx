import { notFound } from "next/navigation";
import { db } from "@/lib/db/client";
import { isUuid } from "@/lib/ids";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { customerProfile } from "@/lib/staff/queries/customers/page";
import { programAdjustCeilings } from "@/lib/domain/programs";
import { ceilingFor, ceilingRule } from "@/lib/domain/adjustment-ceilings";
import { BalanceExplainedCard } from "@/components/dashboard/customer/balance-explained-card";
import { CustomerActions } from "@/components/dashboard/customer/customer-actions";
import { CustomerHeading } from "@/components/dashboard/customer/customer-heading";
import { CustomerSummary } from "@/components/dashboard/customer/customer-summary";
import { DangerZone } from "@/components/dashboard/customer/danger-zone";
import { LoyaltyDataCard, NotificationPreferencesCard } from "@/components/dashboard/customer/loyalty-data-card";
import { PreferencesFormCard } from "@/components/dashboard/customer/preferences-form";
import { RedemptionsCard } from "@/components/dashboard/customer/redemptions-card";
import { TierCard } from "@/components/dashboard/customer/tier-card";
import { ReferralsCard } from "@/components/dashboard/customer/referrals-card";
import { SegmentsCard } from "@/components/dashboard/customer/segments-card";
import { TimelineCard } from "@/components/dashboard/customer/timeline-card";
import { UserDataCard } from "@/components/dashboard/customer/user-data-form";

export const metadata = { title: "Customer · Loyalty" };

/**
 * One customer: loads everything the cards show in one place, then lays the cards out. On a phone the page opens
 * with a compact summary (tier, points, balance, links to the sections), then the routine actions; on a wide screen
 * the actions sit in the right-hand column beside the customer's data and timeline. Destructive actions (delete)
 * are apart, in a danger zone at the end of the page. Roles that may not edit see read views, not disabled forms.
 */
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
  const canEdit = allowed("customers.edit");
  const canDelete = allowed("customers.delete");
  const sections = ["actions", "history", "profile", ...(canDelete ? ["danger-zone"] : [])];

  return (
    <div className="space-y-6">
      <CustomerHeading programId={programId} customer={customer} />
      <CustomerSummary customer={customer} sections={sections} />

      <div className="grid gap-4 lg:grid-cols-3">
        <div id="actions" className="min-w-0 scroll-mt-20 space-y-4 lg:order-2">
          <CustomerActions
            programId={programId}
            customerId={customerId}
            rewards={profile.rewards}
            pools={profile.pools}
            adjustLimit={{ ceiling: ceilingFor(staff.role, ceilings), rule: ceilingRule(staff.role, ceilings) }}
            can={{
              adjust: allowed("balance.adjust"),
              redeem: allowed("rewards.redeem"),
              assign: allowed("coupons.assign"),
              notify: allowed("notifications.send"),
            }}
          />
          {canEdit ? (
            <PreferencesFormCard
              programId={programId}
              customerId={customerId}
              customer={customer}
              version={profile.version}
            />
          ) : (
            <NotificationPreferencesCard customer={customer} />
          )}
        </div>

        <div className="min-w-0 space-y-4 lg:order-1 lg:col-span-2">
          <div className="grid gap-4 md:grid-cols-2">
            <TierCard customer={customer} progress={profile.balance.tier} />
            <LoyaltyDataCard customer={customer} />
          </div>
          <SegmentsCard programId={programId} segments={profile.segments} />
          <BalanceExplainedCard explained={profile.balance} />
          <RedemptionsCard
            programId={programId}
            customerId={customerId}
            rows={profile.redemptions}
            canCancel={allowed("rewards.redeem")}
          />
          <ReferralsCard programId={programId} referrals={profile.referrals} />
          <div id="history" className="scroll-mt-20">
            <TimelineCard
              programId={programId}
              customerId={customerId}
              initial={profile.timeline}
              canNote={canEdit}
              reverseLimit={
                allowed("balance.adjust")
                  ? { ceiling: ceilingFor(staff.role, ceilings), rule: ceilingRule(staff.role, ceilings) }
                  : null
              }
            />
          </div>
          <div id="profile" className="scroll-mt-20">
            <UserDataCard
              programId={programId}
              customerId={customerId}
              email={customer.email}
              userData={customer.userData}
              attributes={profile.customerAttributes}
              values={customer.customAttributes}
              canEdit={canEdit}
              version={profile.version}
            />
          </div>
        </div>
      </div>
      {canDelete && <DangerZone programId={programId} customerId={customerId} email={customer.email} />}
    </div>
  );
}
