/**
 * The one place where a response body is put together from JSON text the database already serialised (a ledger
 * entry, a list) and plain values, so that no route joins strings into JSON (docs/style.md "Route handlers"). The
 * text of a part is kept byte for byte; everything else goes through JSON.stringify.
 */

const TEXT = Symbol("rawJson");

/** JSON text to embed as it is. */
export interface RawJson {
  readonly [TEXT]: string;
}

export const rawJson = (text: string): RawJson => ({ [TEXT]: text });

const isRaw = (value: unknown): value is RawJson => typeof value === "object" && value !== null && TEXT in value;

/** A JSON object of these members, in this order; a RawJson member is written as its text. */
export function jsonObject(members: Record<string, unknown>): string {
  const parts = Object.entries(members).map(
    ([name, value]) => `${JSON.stringify(name)}:${isRaw(value) ? value[TEXT] : JSON.stringify(value)}`,
  );
  return `{${parts.join(",")}}`;
}

/** The `{ "data": [...] }` envelope of a list the database serialised. */
export const dataEnvelope = (listJson: string) => jsonObject({ data: rawJson(listJson) });
