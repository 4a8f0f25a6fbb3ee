import { db } from "@/lib/db/client";
import type { ReportRange } from "@/lib/staff/report-range";
import { referralReport } from "@/lib/staff/queries/reports-referrals";
import { Figure } from "./report-stats";

/** The reports' referral figures of the period (a server component: it loads them), each against the previous period. */
export async function ReferralStats({ programId, range }: { programId: string; range: ReportRange }) {
  const { current, previous } = await referralReport(await db(), programId, range);
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
