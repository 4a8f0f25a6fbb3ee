"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { staffFetch } from "@/lib/staff/client";
import { queryKeys, staffApi } from "@/lib/staff/urls";
import { Badge, Card, Table, formatDate, formatNumber, secondaryButtonClass } from "@/components/ui";
import type { CustomerProfile } from "./profile";

type Page = CustomerProfile["history"];

const COLUMNS = [
  { label: "When" },
  { label: "Type" },
  { label: "Points", align: "right" },
  { label: "Balance", align: "right" },
  { label: "Reason" },
  { label: "Source", className: "hidden md:table-cell" },
] as const;

/** The customer page's points history: the first page comes with the page, older ones load on request. */
export function HistoryCard({
  programId,
  customerId,
  initial,
}: {
  programId: string;
  customerId: string;
  initial: Page;
}) {
  const query = useInfiniteQuery({
    queryKey: queryKeys.history(customerId),
    queryFn: ({ pageParam }) => staffFetch<Page>("GET", staffApi.transactions(programId, customerId, pageParam)),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    initialData: { pages: [initial], pageParams: [null] },
  });
  const entries = query.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Card title="Points history">
      <Table label="Points history" look="plain" columns={COLUMNS} rows={entries} empty="No points movements yet.">
        {(e) => (
          <tr key={e.id}>
            <td className="whitespace-nowrap py-2 pr-4 text-slate-600">{formatDate(e.createdAt)}</td>
            <td className="py-2 pr-4">
              <Badge tone={e.points > 0 ? "green" : "amber"}>{e.type}</Badge>
            </td>
            <td
              className={`whitespace-nowrap py-2 pr-4 text-right tabular-nums ${e.points > 0 ? "text-emerald-800" : "text-amber-900"}`}
            >
              {e.points > 0 ? "+" : ""}
              {formatNumber(e.points)}
            </td>
            <td className="py-2 pr-4 text-right tabular-nums">{formatNumber(e.balanceAfter)}</td>
            <td className="min-w-40 py-2 pr-4">{e.reason ?? "—"}</td>
            <td className="hidden py-2 text-slate-600 md:table-cell">{e.source}</td>
          </tr>
        )}
      </Table>
      {query.isError && (
        <p className="mt-2 text-sm text-red-700" role="alert">
          Could not load older entries: {query.error.message}
        </p>
      )}
      {query.hasNextPage && (
        <button
          className={`${secondaryButtonClass} mt-3`}
          onClick={() => query.fetchNextPage()}
          disabled={query.isFetchingNextPage}
        >
          {query.isFetchingNextPage ? "Loading…" : "Load older entries"}
        </button>
      )}
    </Card>
  );
}
