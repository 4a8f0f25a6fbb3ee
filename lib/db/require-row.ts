import "server-only";
import { isUuid } from "@/lib/ids";

/**
 * The one shape of "the row this id names, or not found". An id from a URL that is not a uuid names nothing (it
 * never reaches a uuid column, where it would be a 500), and neither does an id `find` returns nothing for: the
 * lookup's own where clause says which rows count (this program's, live ones), so another program's row is
 * indistinguishable from a missing one.
 */
export async function findRow<T>(
  id: string | null | undefined,
  find: (id: string) => Promise<T | null | undefined>,
): Promise<T | null> {
  return isUuid(id) ? ((await find(id)) ?? null) : null;
}

/** `findRow`, with `missing()` thrown when there is no row. */
export async function requireRow<T>(
  id: string | null | undefined,
  find: (id: string) => Promise<T | null | undefined>,
  missing: () => Error,
): Promise<T> {
  const row = await findRow(id, find);
  if (row === null) throw missing();
  return row;
}
