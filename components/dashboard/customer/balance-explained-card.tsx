"use client";

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { BalanceExplained } from "@/lib/domain/balance-explained";
import { Card, Table, formatDate, formatNumber } from "@/components/ui";

/**
 * The customer page's "Why is this balance X?": the open lots adding up to the balance, the points expiring soon and
 * per month (a chart), and the tier points of the period with what counts and what does not. The same explanation
 * as the API's Explain a balance (lib/domain/balance-explained.ts).
 */

/** Lots shown at once; the rest of those listed open in a disclosure. */
const LOTS_SHOWN = 5;

const TYPE_TEXT: Record<string, string> = {
  earn: "Earned",
  spend: "Spent",
  adjust: "Adjustments",
  redeem: "Redemptions",
  expire: "Expired",
  reversal: "Reversals",
};

const signed = (n: number) => `${n > 0 ? "+" : n < 0 ? "−" : ""}${formatNumber(Math.abs(n))}`;
const monthLabel = (month: string) =>
  new Date(`${month}-01T00:00:00Z`).toLocaleString("en-GB", { month: "short", year: "2-digit", timeZone: "UTC" });
const day = (iso: string | null) => (iso ? formatDate(iso).replace(/,? \d{2}:\d{2} UTC$/, "") : "never");

function LotsTable({ lots, label }: { lots: BalanceExplained["lots"]; label: string }) {
  return (
    <Table
      label={label}
      look="plain"
      columns={[{ label: "From" }, { label: "Earned" }, { label: "Expires" }, { label: "Left", align: "right" }]}
      rows={lots}
    >
      {(lot) => (
        <tr key={lot.transactionId}>
          <td className="py-1 pr-4">
            {TYPE_TEXT[lot.type] ?? lot.type}
            {lot.reason ? <span className="block text-xs text-slate-600">{lot.reason}</span> : null}
          </td>
          <td className="whitespace-nowrap py-1 pr-4">{day(lot.earnedAt)}</td>
          <td className="whitespace-nowrap py-1 pr-4">{day(lot.expiresAt)}</td>
          <td className="py-1 text-right tabular-nums">
            {formatNumber(lot.remaining)}
            {lot.remaining !== lot.points ? (
              <span className="block text-xs text-slate-600">of {formatNumber(lot.points)}</span>
            ) : null}
          </td>
        </tr>
      )}
    </Table>
  );
}

function ExpiryChart({ months }: { months: BalanceExplained["expiringByMonth"] }) {
  const data = months.map((m) => ({ ...m, label: monthLabel(m.month) }));
  const description = `Bar chart of points expiring per month over the next ${months.length} months: ${months
    .filter((m) => m.points > 0)
    .map((m) => `${monthLabel(m.month)} ${formatNumber(m.points)}`)
    .join(", ")}`;
  return (
    <div className="h-40" role="img" aria-label={description}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ left: 0, right: 8, top: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" vertical={false} />
          <XAxis dataKey="label" fontSize={11} interval="preserveStartEnd" minTickGap={4} />
          <YAxis fontSize={11} width={48} allowDecimals={false} tickFormatter={(v: number) => formatNumber(v)} />
          <Tooltip formatter={(v) => [formatNumber(Number(v)), "Points expiring"]} />
          <Bar dataKey="points" name="Points expiring" fill="#b45309" radius={[3, 3, 0, 0]} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function BalanceExplainedCard({ explained }: { explained: BalanceExplained }) {
  const { lots, tier, expiring } = explained;
  const listed = lots.reduce((s, l) => s + l.remaining, 0);
  return (
    <Card title="Balance explained">
      <p className="text-sm">
        <span className="text-lg font-semibold tabular-nums">{formatNumber(explained.balance)}</span> points in{" "}
        {formatNumber(explained.lotsCount)} open {explained.lotsCount === 1 ? "lot" : "lots"}, spent and expiring oldest
        first.
      </p>

      <dl className="mt-3 grid grid-cols-3 gap-2 text-center">
        {(
          [
            ["within 30 days", expiring.within30Days],
            ["within 60 days", expiring.within60Days],
            ["within 90 days", expiring.within90Days],
          ] as const
        ).map(([label, points]) => (
          <div key={label} className="rounded-md bg-slate-50 px-2 py-2">
            <dt className="text-xs text-slate-600">Expiring {label}</dt>
            <dd className="font-semibold tabular-nums">{formatNumber(points)}</dd>
          </div>
        ))}
      </dl>

      <h3 className="mt-4 text-xs font-semibold uppercase tracking-wide text-slate-700">Points expiring per month</h3>
      {explained.expiringByMonth.some((m) => m.points > 0) ? (
        <ExpiryChart months={explained.expiringByMonth} />
      ) : (
        <p className="mt-1 text-sm text-slate-600">
          No points expire in the next {explained.expiringByMonth.length} months.
        </p>
      )}

      <h3 className="mt-4 text-xs font-semibold uppercase tracking-wide text-slate-700">Open lots</h3>
      {lots.length === 0 ? (
        <p className="mt-1 text-sm text-slate-600">No open lots: the balance is 0.</p>
      ) : (
        <>
          <LotsTable lots={lots.slice(0, LOTS_SHOWN)} label="Open lots" />
          {lots.length > LOTS_SHOWN && (
            <details className="mt-2 text-sm">
              <summary className="cursor-pointer font-medium text-indigo-700">
                Show {formatNumber(lots.length - LOTS_SHOWN)} more {explained.lotsTruncated ? "listed " : ""}lots
              </summary>
              <LotsTable lots={lots.slice(LOTS_SHOWN)} label="More open lots" />
            </details>
          )}
          <p className="mt-2 text-xs text-slate-600">
            {formatNumber(listed)} points in the {formatNumber(lots.length)} lots listed
            {explained.lotsTruncated
              ? ` + ${formatNumber(explained.unlistedPoints)} in ${formatNumber(explained.lotsCount - lots.length)} more (not listed)`
              : ""}{" "}
            = {formatNumber(explained.balance)}.
          </p>
        </>
      )}

      <h3 className="mt-4 text-xs font-semibold uppercase tracking-wide text-slate-700">Tier points this period</h3>
      <p className="mt-1 text-sm">
        <span className="font-semibold tabular-nums">{formatNumber(tier.points)}</span> tier points from{" "}
        {day(tier.periodStart)} to {day(tier.periodEnd)}.{" "}
        {tier.next
          ? `${formatNumber(tier.pointsToNext)} more for ${tier.next.name}.`
          : tier.current
            ? "Top tier reached."
            : ""}{" "}
        After this period: {tier.projected?.name ?? "no tier"}.
      </p>
      <ul className="mt-2 space-y-1 text-sm" aria-label="What counts towards the tier">
        <li className="flex justify-between gap-2">
          <span>
            Earned <span className="text-slate-600">({formatNumber(tier.earned.entries)} entries, count)</span>
          </span>
          <span className="tabular-nums">{signed(tier.earned.points)}</span>
        </li>
        {tier.reversed.entries > 0 && (
          <li className="flex justify-between gap-2">
            <span>
              Reversed <span className="text-slate-600">({formatNumber(tier.reversed.entries)} entries, count)</span>
            </span>
            <span className="tabular-nums">{signed(-tier.reversed.points)}</span>
          </li>
        )}
      </ul>
      {tier.notCounted.length > 0 && (
        <ul className="mt-2 space-y-1 border-t border-slate-100 pt-2 text-sm" aria-label="What does not count">
          {tier.notCounted.map((t) => (
            <li key={t.type} className="flex justify-between gap-2 text-slate-700">
              <span>
                {TYPE_TEXT[t.type] ?? t.type}{" "}
                <span className="text-slate-600">({formatNumber(t.entries)}, not counted)</span>
              </span>
              <span className="tabular-nums">{signed(t.points)}</span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
