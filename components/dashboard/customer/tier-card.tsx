import type { BalanceExplained } from "@/lib/domain/balance-explained";
import { progressPercent } from "@/lib/domain/tier-progress";
import { Badge, Card, formatDate, formatNumber } from "@/components/ui";
import type { CustomerData } from "./profile";

const STATUS_TEXT: Record<string, string> = {
  base: "base tier",
  earned: "earned this period",
  carried: "carried from last period",
};

/**
 * The customer page's tier card: the tier and its status, the carry tier, dates, and progress to the next tier —
 * the progress as the balance's explanation decided it (`progress`: the tier points of the period and the next tier
 * as of now), so that the two cards never disagree.
 */
export function TierCard({ customer, progress }: { customer: CustomerData; progress: BalanceExplained["tier"] }) {
  const ct = customer.customerTier;
  const { next, pointsToNext: remaining, points } = progress;
  const percent = progressPercent(points, next);
  const status = customer.loyaltyData.tierStatus;
  return (
    <Card title="Tier">
      <p className="flex flex-wrap items-center gap-2 text-lg font-semibold">
        {ct.currentTier?.name ?? "No tier"}
        <Badge tone={status === "base" ? "slate" : "green"}>{STATUS_TEXT[status] ?? status}</Badge>
      </p>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-600">Carry tier</dt>
        <dd>
          {ct.carryTier?.name ?? "—"}{" "}
          <span className="text-slate-600">({formatNumber(ct.carryTierPoints)} points last period)</span>
        </dd>
        <dt className="text-slate-600">Changed</dt>
        <dd>{formatDate(ct.tierChangedAt)}</dd>
        <dt className="text-slate-600">Recalculation</dt>
        <dd>{formatDate(ct.recalculationDate)}</dd>
      </dl>
      <div className="mt-3">
        <div className="flex flex-wrap justify-between gap-x-2 text-xs text-slate-700">
          <span>{formatNumber(points)} points this period</span>
          <span>{next ? `${formatNumber(remaining)} more for ${next.name}` : "Top tier reached"}</span>
        </div>
        <div
          className="mt-1 h-2 rounded-full bg-slate-200"
          role="progressbar"
          aria-valuenow={percent}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-label={next ? `Progress to ${next.name}` : "Progress to the next tier"}
        >
          <div className="h-2 rounded-full bg-indigo-600" style={{ width: `${percent}%` }} />
        </div>
      </div>
    </Card>
  );
}
