import clsx from "clsx";
import { Empty } from "./card";

/** The one place for the markup of a data table: scroll box, labelled table, header row and empty state. */

/**
 * A table that scrolls sideways inside its card instead of widening the page on a phone. `relative` keeps
 * absolutely positioned (sr-only) cell content inside the scroll box; `bleed` lets it use the card's padding.
 */
export function TableScroll({ children, bleed = true }: { children: React.ReactNode; bleed?: boolean }) {
  return <div className={clsx("relative overflow-x-auto", bleed && "-mx-4 px-4")}>{children}</div>;
}

export interface Column {
  /** The header text; with `hidden`, read to screen readers only (an actions column). */
  label: string;
  hidden?: boolean;
  align?: "right";
  /** Extra classes for the header cell, e.g. "hidden sm:table-cell" to match the column's cells. */
  className?: string;
}

/**
 * boxed: a tinted header row and ruled rows, for a page's main list; `pad` is the cells' padding.
 * plain: a bare header and cells spaced on the right only, for a table among other content in a card.
 */
const LOOKS = {
  boxed: { table: "min-w-full divide-y divide-slate-200 text-sm", head: "whitespace-nowrap bg-slate-50", cell: "" },
  plain: { table: "min-w-full text-sm", head: "", cell: "pr-4 last:pr-0" },
} as const;

export interface TableProps<T> {
  /** The table's accessible name. */
  label: string;
  columns: readonly (Column | false)[];
  rows: readonly T[];
  /** Renders one row; the returned <tr> carries its key. */
  children: (row: T, index: number) => React.ReactNode;
  /** Shown instead of the table when there are no rows. */
  empty?: React.ReactNode;
  look?: keyof typeof LOOKS;
  /** The header cells' padding: the same as the row's cells, so the columns line up. */
  pad?: string;
  bleed?: boolean;
  className?: string;
  bodyClassName?: string;
  /**
   * Renders one row as a card for phones: below the `sm` breakpoint (640 px) the rows become a list of these
   * cards and the table is hidden, so a narrow screen shows each row's essentials without sideways scrolling.
   * The returned element carries its key; `ResponsiveCard` gives the shared look.
   */
  card?: (row: T, index: number) => React.ReactNode;
}

export function Table<T>({
  label,
  columns,
  rows,
  children,
  empty,
  look = "boxed",
  pad,
  bleed,
  className,
  bodyClassName,
  card,
}: TableProps<T>) {
  if (rows.length === 0 && empty !== undefined) return <Empty>{empty}</Empty>;
  const style = LOOKS[look];
  const cellPad = pad ?? (look === "boxed" ? "px-4 py-2" : "py-2");
  const table = (
    <TableScroll bleed={bleed}>
      <table className={clsx(style.table, className)} aria-label={label}>
        <thead className={clsx(style.head, "text-left text-xs font-semibold uppercase tracking-wide text-slate-700")}>
          <tr>
            {columns
              .filter((c) => c !== false)
              .map((c) => (
                <th
                  key={c.label}
                  scope="col"
                  className={clsx(cellPad, style.cell, c.align === "right" && "text-right", c.className)}
                >
                  {c.hidden ? <span className="sr-only">{c.label}</span> : c.label}
                </th>
              ))}
          </tr>
        </thead>
        <tbody className={clsx("divide-y divide-slate-100", bodyClassName)}>
          {rows.map((row, i) => children(row, i))}
        </tbody>
      </table>
    </TableScroll>
  );
  if (!card) return table;
  return (
    <>
      <ul aria-label={label} className="divide-y divide-slate-100 sm:hidden">
        {rows.map((row, i) => card(row, i))}
      </ul>
      <div className="hidden sm:block">{table}</div>
    </>
  );
}

/**
 * One row of a Table as a phone card: a title line (usually the link to the row's page), then label–value pairs
 * side by side. Give it the row's `key`.
 */
export function ResponsiveCard({
  title,
  fields,
}: {
  title: React.ReactNode;
  fields: readonly { label: string; value: React.ReactNode }[];
}) {
  return (
    <li className="px-4 py-3">
      <div className="truncate text-sm">{title}</div>
      <dl className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700">
        {fields.map((f) => (
          <div key={f.label} className="flex gap-1">
            <dt className="text-slate-600">{f.label}</dt>
            <dd className="font-medium text-slate-900">{f.value}</dd>
          </div>
        ))}
      </dl>
    </li>
  );
}
