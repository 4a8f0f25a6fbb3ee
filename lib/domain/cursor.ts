/**
 * The one codec of keyset cursors: an opaque base64url text of `<ISO timestamp>|<uuid>`, the position of the
 * last row of a page in (createdAt, id) order. A cursor that does not decode is null, for the caller to refuse
 * or ignore as its contract says.
 */
import "server-only";
import { isUuid } from "@/lib/ids";

export interface KeysetPosition {
  at: string;
  id: string;
}

export const encodeCursor = (at: string | Date, id: string): string =>
  Buffer.from(`${typeof at === "string" ? at : at.toISOString()}|${id}`, "utf8").toString("base64url");

export function decodeCursor(cursor: string | null | undefined): KeysetPosition | null {
  if (!cursor) return null;
  const [at, id, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (rest.length || !at || !isUuid(id) || Number.isNaN(Date.parse(at))) return null;
  return { at, id };
}
