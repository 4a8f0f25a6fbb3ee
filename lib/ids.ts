/**
 * The one place that says what an id looks like. Ids in URLs are checked before they reach a uuid column, so a
 * malformed one is "not found", never a 500. Client-safe.
 */
export const UUID_PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const UUID = new RegExp(`^${UUID_PATTERN}$`, "i");

export const isUuid = (id: string | null | undefined): id is string => !!id && UUID.test(id);
