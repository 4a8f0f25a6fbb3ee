/**
 * The one place for how the reference arranges what the document says: operations grouped by tag, a response's
 * error codes with their meanings, a body's examples, the response headers. Pure functions of the parsed document (./document.ts).
 */
import {
  deref,
  operationsOf,
  slug,
  type Doc,
  type Media,
  type OperationEntry,
  type Response,
  type Schema,
} from "./document";

export type TagGroup = { id: string; name: string; description?: string; operations: OperationEntry[] };

/**
 * Operations by their first tag, tags in the order of the document's `tags` list (then any others in the order
 * they first appear), operations in document order. Untagged operations come last, under "Other operations"
 * (or "Operations" when the document has no tags at all).
 */
export function groupByTag(doc: Doc, operations: OperationEntry[]): TagGroup[] {
  const groups = new Map<string, TagGroup>();
  const add = (name: string, description?: string) => {
    if (!groups.has(name)) groups.set(name, { id: `tag-${slug(name)}`, name, description, operations: [] });
    return groups.get(name)!;
  };
  for (const tag of doc.tags ?? []) add(tag.name, tag.description);
  const untagged: OperationEntry[] = [];
  for (const entry of operations) {
    const tag = entry.op.tags?.[0];
    if (tag) add(tag).operations.push(entry);
    else untagged.push(entry);
  }
  const tagged = [...groups.values()].filter((g) => g.operations.length > 0);
  if (untagged.length === 0) return tagged;
  const name = tagged.length > 0 ? "Other operations" : "Operations";
  return [...tagged, { id: `tag-${slug(name)}`, name, operations: untagged }];
}

export type ErrorCode = { code: string; meaning?: string };

/**
 * A problem response's codes: the `enum` on its `code` property, each with its meaning taken from the
 * description ("`code`: meaning. `other`: meaning."). `prose` is true when the description does not name every
 * code that way, so the page shows the description as written as well.
 */
export function errorCodes(response: Response): { codes: ErrorCode[]; prose: boolean } {
  const schemas = Object.values(response.content ?? {}).map((m) => m.schema);
  const codes = schemas.map(codeEnum).find((e) => e && e.length > 0);
  if (!codes) return { codes: [], prose: true };
  const text = response.description ?? "";
  const starts = codes.map((code) => ({ code, at: text.indexOf(`\`${code}\`: `) }));
  if (starts.some((s) => s.at < 0)) return { codes: codes.map((code) => ({ code })), prose: true };
  const ordered = [...starts].sort((a, b) => a.at - b.at);
  const meanings = new Map(
    ordered.map(({ code, at }, i) => {
      const end = ordered[i + 1]?.at ?? text.length;
      return [code, text.slice(at + code.length + 4, end).trim()];
    }),
  );
  return { codes: codes.map((code) => ({ code, meaning: meanings.get(code) })), prose: false };
}

function codeEnum(schema: Schema | undefined): string[] | undefined {
  const code = schema?.properties?.code ?? schema?.allOf?.map((s) => s.properties?.code).find(Boolean);
  return code?.enum?.filter((v): v is string => typeof v === "string");
}

export type ExampleBlock = { key: string; name: string; mediaType: string; description?: string; json: string };

/** A body's examples (the `examples` map, or a single `example`), as indented JSON ready for a <pre>. */
export function examplesOf(doc: Doc, media: Media | undefined): ExampleBlock[] {
  return Object.entries(media ?? {}).flatMap(([mediaType, m]) => {
    const named = Object.entries(m.examples ?? {}).map(([name, e]) => ({ name, ...deref(doc, e) }));
    if (named.length === 0 && m.example !== undefined) named.push({ name: "example", value: m.example });
    return named
      .filter((e) => e.value !== undefined)
      .map((e) => ({
        key: `${mediaType}-${e.name}`,
        name: e.summary ?? e.name,
        mediaType,
        description: e.description,
        json: typeof e.value === "string" ? e.value : JSON.stringify(e.value, null, 2),
      }));
  });
}

export type HeaderEntry = { name: string; id: string; descriptions: string[]; schema?: Schema };
export const headerAnchor = (name: string) => `header-${slug(name)}`;

/**
 * Every response header the document declares, once per name (in order of first use), with its descriptions:
 * most headers come with every response, so the reference describes them once and each status links here.
 */
export function responseHeaders(doc: Doc): HeaderEntry[] {
  const byName = new Map<string, HeaderEntry>();
  for (const { op } of [...operationsOf(doc.paths), ...operationsOf(doc.webhooks)]) {
    for (const response of Object.values(op.responses ?? {})) {
      for (const [name, raw] of Object.entries(deref(doc, response).headers ?? {})) {
        const header = deref(doc, raw);
        const key = name.toLowerCase();
        if (!byName.has(key))
          byName.set(key, { name, id: headerAnchor(name), descriptions: [], schema: header.schema });
        const entry = byName.get(key)!;
        if (header.description && !entry.descriptions.includes(header.description))
          entry.descriptions.push(header.description);
      }
    }
  }
  return [...byName.values()];
}
