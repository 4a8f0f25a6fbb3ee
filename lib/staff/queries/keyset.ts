import "server-only";
import { decodeCursor, encodeCursor } from "@/lib/domain/cursor";

/**
 * The one place for the dashboard's newest-first keyset pages over (createdAt, id) (audit log, deliveries): the
 * order, the rows after a cursor, and the cursor of the next page, with the codec of lib/domain/cursor.ts. A
 * cursor that is not one of ours (an edited URL) starts from the first page.
 */

export const NEWEST_FIRST = [{ createdAt: "desc" }, { id: "desc" }] as const;

/** The Prisma condition for rows after `cursor` in NEWEST_FIRST order; none for no cursor or a foreign one. */
export function olderThan(cursor: string | null | undefined) {
  const position = decodeCursor(cursor);
  if (!position) return {};
  const at = new Date(position.at);
  return { OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: position.id } }] };
}

/** A page of `take` rows, fetched as `take + 1`, and the cursor of the next page (null on the last). */
export function keysetPage<T extends { createdAt: Date; id: string }>(
  rows: T[],
  take: number,
): { rows: T[]; next: string | null } {
  const last = rows.length > take ? rows[take - 1]! : null;
  return { rows: rows.slice(0, take), next: last ? encodeCursor(last.createdAt, last.id) : null };
}
