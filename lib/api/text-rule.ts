import type { FieldProblem } from "@/lib/errors";
import { formatPath } from "./problem";

/**
 * The one text rule (API.md §1): every string that enters through the edge — body fields and object keys at any
 * depth, path parameters, query values, the headers we store — must be text PostgreSQL can hold: no U+0000 and no
 * unpaired UTF-16 surrogate (which JSON's `\ud800` escapes can produce). The edge (./edge.ts) applies it once to
 * every input, before and beside the schema, so no schema field needs to repeat it. Invalid UTF-8 in a body never
 * becomes a string at all (./json-body.ts decodes strictly).
 */

export const TEXT_RULE_MESSAGE = "must not contain U+0000 or unpaired surrogates";

export const isStorableText = (s: string): boolean => !s.includes("\u0000") && s.isWellFormed();

/** A key as it can be shown in a path: the offending characters replaced, so the answer is valid text itself. */
const shown = (key: string) => key.toWellFormed().replaceAll("\u0000", "\uFFFD");

/**
 * Every string in `value` (keys included) that breaks the rule, by path (`base` prefixes it). Iterative: depth is
 * bounded by ./json-body.ts, but this never recurses anyway.
 */
export function textProblems(value: unknown, base: readonly PropertyKey[] = []): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value, path: [...base] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === "string") {
      if (!isStorableText(v)) problems.push({ path: formatPath(path), message: TEXT_RULE_MESSAGE });
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    const entries: [PropertyKey, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      if (typeof k === "string" && !isStorableText(k)) {
        problems.push({ path: formatPath([...path, shown(k)]), message: `has a key that ${TEXT_RULE_MESSAGE}` });
        continue;
      }
      stack.push({ value: x, path: [...path, k] });
    }
  }
  return problems;
}
