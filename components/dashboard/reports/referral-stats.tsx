import type { ReferralTotals } from "@/lib/staff/queries/reports-referrals";
import { Figure } from "./report-stats";

/** The reports' referral figures of the period, each against the previous period. */
export function ReferralStats({ current, previous }: { current: ReferralTotals; previous: ReferralTotals }) {
  return (
    <section aria-label="Referrals of the period" className="space-y-2">
      <h2 className="text-lg font-semibold">Referrals</h2>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        <Figure
          label="Referrals made"
          current={current.made}
          previous={previous.made}
          hint="customers who gave a code"
        />
        <Figure
          label="Referrals completed"
          current={current.completed}
          previous={previous.completed}
          hint="first qualifying earn in the period"
        />
        <Figure
          label="Referral points awarded"
          current={current.points}
          previous={previous.points}
          hint="both sides together"
        />
      </div>
    </section>
  );
}
