import "server-only";
import type { z } from "zod";
import { FEATURES, USER_FEATURES } from "@/lib/domain/vocabulary";
import { DeleteBatch, IntegrationBatch, UnknownFeatureItem } from "./schemas/integrations";
import { formatPath, validationFailed } from "./problem";
import { PARSE_PARAMS } from "./edge";
import { textProblems } from "./text-rule";

/**
 * The one place where a resources batch (Create/Update and Delete, spec §4.2) is validated as a whole: every
 * problem of every item is listed, and a batch whose only problems are unknown `feature` values gets the more
 * precise code `unsupported_feature`. The edge's text rule and "required" messages apply as in ./edge.ts `parseWith`.
 */
export function parseBatch<S extends z.ZodType>(
  schema: S,
  input: unknown,
  supported: readonly string[],
  unknownFeatureItem?: z.ZodType,
): z.output<S> {
  const text = textProblems(input);
  const result = schema.safeParse(input, PARSE_PARAMS);
  if (result.success && text.length === 0) return result.data;
  if (result.success) throw validationFailed(text);
  const itemAt = (index: PropertyKey) => (Array.isArray(input) ? (input[index as number] as unknown) : undefined);
  // A union by `feature` stops at a feature it does not know: the item's other fields are checked as well, so that
  // every problem is listed.
  const issues = result.error.issues.flatMap((issue) => {
    if (!unknownFeatureItem || issue.code !== "invalid_union" || !isFeaturePath(issue.path)) return [issue];
    const rest = unknownFeatureItem.safeParse(itemAt(issue.path[0]!), PARSE_PARAMS);
    const more = rest.success
      ? []
      : rest.error.issues
          .filter((i) => i.path[0] !== "feature")
          .map((i) => ({ ...i, path: [issue.path[0]!, ...i.path] }));
    return [issue, ...more];
  });
  const problems = issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
  if (text.length > 0) throw validationFailed([...text, ...problems]);
  // Only features that are strings other than the supported ones; a missing or non-string feature is validation_failed.
  const given = (path: PropertyKey[]) => (itemAt(path[0]!) as { feature?: unknown } | null | undefined)?.feature;
  const onlyFeatures = issues.every((i) => isFeaturePath(i.path) && typeof given(i.path) === "string");
  if (onlyFeatures) {
    throw validationFailed(
      problems.map((p) => ({ ...p, message: `is not supported (supported: ${supported.join(", ")})` })),
      "unsupported_feature",
    );
  }
  throw validationFailed(problems);
}

const isFeaturePath = (path: PropertyKey[]) => path.length === 2 && path[1] === "feature";

export const parseIntegrationBatch = (input: unknown) =>
  parseBatch(IntegrationBatch, input, FEATURES, UnknownFeatureItem);
export const parseDeleteBatch = (input: unknown) => parseBatch(DeleteBatch, input, USER_FEATURES);
