import Link from "next/link";
import { notFound } from "next/navigation";
import { openProgramSearchPage, type ProgramSearchPageProps } from "@/lib/staff/program-page";
import { advanceTimelinePage, clockAdvances, clockMonths } from "@/lib/staff/queries/clock";
import { dashboardPages } from "@/lib/staff/urls";
import { AppliedCounts } from "@/components/dashboard/clock/applied-counts";
import { ClockCharts } from "@/components/dashboard/clock/clock-charts";
import { TimelineTable } from "@/components/dashboard/clock/timeline-table";
import { Card, Empty, KeysetPager, ResponsiveCard, Table, formatDate, formatNumber } from "@/components/ui";

export const metadata = { title: "Test clock · Loyalty" };

/**
 * A test program's clock: what every advance did (from the dashboard or the API, newest first), one advance's
 * timeline page by page (`?advance=…&after=…`; the latest by default), and a chart per month of clock time.
 */
export default async function ClockPage(props: ProgramSearchPageProps<"advance" | "after">) {
  const { programId, staff, search, database } = await openProgramSearchPage(props, "program.read");
  if (!staff.programTest || !staff.programClockAt) notFound();
  const [advances, chart] = await Promise.all([clockAdvances(database, programId), clockMonths(database, programId)]);
  // The advance asked for (one of the latest listed), or the latest.
  const chosen = search.advance ? advances.find((a) => a.id === search.advance) : advances[0];
  if (search.advance && !chosen) notFound();
  const page = chosen ? await advanceTimelinePage(database, programId, chosen.id, search.after) : null;
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Test clock</h1>
      <p className="text-sm text-slate-600">
        The clock stands at{" "}
        <time className="font-semibold text-slate-900" dateTime={staff.programClockAt.toISOString()}>
          {formatDate(staff.programClockAt)}
        </time>
        . Each advance ran every timer due on the way, at its own instant: points expiry, then tier period closing, then
        lifecycle campaigns.
      </p>
      {advances.length === 0 ? (
        <Empty>The clock has not been advanced yet: use “Advance to…” in the bar above, or the API.</Empty>
      ) : (
        <>
          {chart.months.length > 0 && <ClockCharts months={chart.months} />}
          {chart.cut && (
            <p className="text-xs text-slate-600">
              An advance&apos;s timeline keeps its first 1,000 entries: the charts count those of a longer one.
            </p>
          )}
          <Card title="Advances">
            <Table
              label="Advances"
              look="plain"
              columns={[
                { label: "From" },
                { label: "To" },
                { label: "Points expired", align: "right" },
                { label: "Tier changes", align: "right" },
                { label: "By", className: "hidden md:table-cell" },
                { label: "Timeline", hidden: true },
              ]}
              rows={advances}
              card={(a) => (
                <ResponsiveCard
                  key={a.id}
                  title={
                    a.id === chosen?.id ? (
                      `${formatDate(a.from)} → ${formatDate(a.to)}`
                    ) : (
                      <Link className="text-indigo-700 hover:underline" href={dashboardPages.clock(programId, a.id)}>
                        {formatDate(a.from)} → {formatDate(a.to)}
                      </Link>
                    )
                  }
                  fields={[
                    { label: "Points expired", value: formatNumber(a.applied.expiredPoints) },
                    { label: "Tier changes", value: formatNumber(a.applied.tierChanges) },
                    { label: "By", value: a.source === "api" ? "API" : a.staffEmail },
                  ]}
                />
              )}
            >
              {(a) => (
                <tr key={a.id} aria-current={a.id === chosen?.id ? "true" : undefined}>
                  <td className="whitespace-nowrap py-2 pr-4 tabular-nums">{formatDate(a.from)}</td>
                  <td className="whitespace-nowrap py-2 pr-4 tabular-nums">{formatDate(a.to)}</td>
                  <td className="py-2 pr-4 text-right tabular-nums">{formatNumber(a.applied.expiredPoints)}</td>
                  <td className="py-2 pr-4 text-right tabular-nums">{formatNumber(a.applied.tierChanges)}</td>
                  <td className="hidden py-2 pr-4 md:table-cell">
                    {a.source === "api" ? "API" : a.staffEmail}
                    <span className="block text-xs text-slate-600">{formatDate(a.createdAt)}</span>
                  </td>
                  <td className="py-2 text-right">
                    {a.id === chosen?.id ? (
                      <span className="text-xs font-medium text-slate-600">Shown below</span>
                    ) : (
                      <Link
                        className="whitespace-nowrap text-indigo-700 hover:underline"
                        href={dashboardPages.clock(programId, a.id)}
                      >
                        Timeline
                      </Link>
                    )}
                  </td>
                </tr>
              )}
            </Table>
          </Card>
        </>
      )}
      {chosen && page && (
        <Card title={`Timeline: ${formatDate(chosen.from)} → ${formatDate(chosen.to)}`}>
          <div className="space-y-3">
            <AppliedCounts applied={chosen.applied} label="What this advance did" />
            {chosen.timelineTotal > chosen.timelineKept && (
              <p className="text-xs text-slate-600">
                {formatNumber(chosen.timelineTotal)} entries; the first {formatNumber(chosen.timelineKept)} are kept.
              </p>
            )}
            <TimelineTable programId={programId} rows={page.rows} label="Clock timeline" />
            <KeysetPager
              filters={{ advance: chosen.id }}
              after={search.after}
              next={page.next}
              firstLabel="← First"
              nextLabel="Later →"
            />
          </div>
        </Card>
      )}
    </div>
  );
}
