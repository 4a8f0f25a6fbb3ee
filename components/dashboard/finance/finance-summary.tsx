import type { PointsAccounting } from "@/lib/domain/accounting";
import { Stat, formatNumber } from "@/components/ui";

type Totals = PointsAccounting["totals"];

/** A figure in points, with its money value underneath when the program has one. */
function Amount({ points, money, currency }: { points: number; money: string | undefined; currency: string | null }) {
  return (
    <>
      {formatNumber(points)}
      {money !== undefined && currency && (
        <span className="block text-sm font-normal text-slate-600">
          {money} {currency}
        </span>
      )}
    </>
  );
}

/** The period's books: what was outstanding at its start and end, the main flows, and breakage. */
export function FinanceSummary({ totals, currency }: { totals: Totals; currency: string | null }) {
  const figure = (label: string, key: keyof Omit<Totals, "breakage" | "money">, hint?: string) => (
    <Stat
      label={label}
      hint={hint}
      value={<Amount points={totals[key]} money={totals.money?.[key]} currency={currency} />}
    />
  );
  return (
    <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
      {figure("Opening outstanding", "openingOutstanding", "Spendable points at the start of the first day")}
      {figure("Earned", "earned")}
      {figure("Redeemed", "redeemed", "Net of cancelled redemptions: see the table")}
      {figure("Expired", "expired")}
      {figure("Reversed", "reversed", "Earned points taken back (refunds, reversals)")}
      {figure("Adjusted", "adjusted", `Signed; includes ${formatNumber(totals.erased)} written off by erasures`)}
      {figure("Closing outstanding", "closingOutstanding", "The liability at the end of the last day")}
      <Stat
        label="Breakage"
        value={totals.breakage === null ? "—" : `${(100 * totals.breakage).toFixed(1)} %`}
        hint="Points expired ÷ points earned, trailing 12 months to the last day"
      />
    </div>
  );
}
