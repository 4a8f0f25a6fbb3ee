"use client";

import { Card, Empty } from "@/components/ui";
import { AdjustBalanceForm, type AdjustLimit } from "./adjust-balance-form";
import { NotifyForm } from "./notify-form";
import { AssignCouponForm, RedeemRewardForm } from "./pick-forms";
import type { CustomerProfile } from "./profile";

export interface CustomerPermissions {
  adjust: boolean;
  redeem: boolean;
  assign: boolean;
  notify: boolean;
}

interface ActionsProps {
  programId: string;
  customerId: string;
  rewards: CustomerProfile["rewards"];
  pools: CustomerProfile["pools"];
  can: CustomerPermissions;
  /** The staff member's adjustment ceiling in points (null: none) and its rule in words, shown with the form. */
  adjustLimit: AdjustLimit;
}

/**
 * The customer page's "Actions" card: the routine writes the staff member's role allows, one form each. Deleting
 * the customer is not routine: it is in the page's danger zone, at the end (danger-zone.tsx).
 */
export function CustomerActions({ programId, customerId, rewards, pools, can, adjustLimit }: ActionsProps) {
  if (!Object.values(can).some(Boolean)) {
    return (
      <Card title="Actions">
        <Empty>Your role can view this customer but not change it.</Empty>
      </Card>
    );
  }
  const at = { programId, customerId };
  return (
    <Card title="Actions">
      <div className="divide-y divide-slate-100 [&>*]:py-4 [&>*:first-child]:pt-0 [&>*:last-child]:pb-0">
        {can.adjust && <AdjustBalanceForm {...at} limit={adjustLimit} />}
        {can.redeem && <RedeemRewardForm {...at} rewards={rewards} />}
        {can.assign && <AssignCouponForm {...at} pools={pools} />}
        {can.notify && <NotifyForm {...at} />}
      </div>
    </Card>
  );
}
