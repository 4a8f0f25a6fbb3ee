import Link from "next/link";
import { secondaryButtonClass } from "./field";

/**
 * The one place for paging a server-rendered list by keyset cursor (lib/domain/cursor.ts): a link back to the
 * first page when this is a later one, and a link to the next page when there is one, both keeping the filters.
 */
export function KeysetPager({
  filters,
  after,
  next,
  firstLabel = "← Newest",
  nextLabel = "Older →",
  className = "flex justify-between",
}: {
  /** The list's filters as query parameters, kept on both links. */
  filters: Record<string, string>;
  /** The cursor of the page shown (absent on the first page). */
  after?: string;
  /** The cursor of the next page, or null on the last. */
  next: string | null;
  firstLabel?: string;
  nextLabel?: string;
  className?: string;
}) {
  return (
    <nav className={className} aria-label="Pagination">
      {after ? (
        <Link className={secondaryButtonClass} href={`?${new URLSearchParams(filters)}`}>
          {firstLabel}
        </Link>
      ) : (
        <span />
      )}
      {next && (
        <Link className={secondaryButtonClass} href={`?${new URLSearchParams({ ...filters, after: next })}`}>
          {nextLabel}
        </Link>
      )}
    </nav>
  );
}
