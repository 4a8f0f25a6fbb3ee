import { FEATURES } from "@/lib/domain/vocabulary";
import { IntegrationBatch, type IntegrationItem } from "./schemas/integrations";
import { validationFailed, zodProblems } from "./problem";

/**
 * Validates a Create/Update batch as a whole: every problem of every item is listed. A batch whose only
 * problems are unknown `feature` values gets the more precise code `unsupported_feature`.
 */
export function parseIntegrationBatch(input: unknown): IntegrationItem[] {
  const result = IntegrationBatch.safeParse(input);
  if (result.success) return result.data;
  const problems = zodProblems(result.error);
  // Only features that are strings other than the supported ones; a missing or non-string feature is validation_failed.
  const given = (i: { path: PropertyKey[] }) => (Array.isArray(input) ? (input[i.path[0] as number] as { feature?: unknown } | null)?.feature : undefined);
  const onlyFeatures = result.error.issues.every((i) => i.path.length === 2 && i.path[1] === "feature" && typeof given(i) === "string");
  if (onlyFeatures) {
    throw validationFailed(
      problems.map((p) => ({ ...p, message: `is not supported (supported: ${FEATURES.join(", ")})` })),
      "unsupported_feature",
    );
  }
  throw validationFailed(problems);
}
