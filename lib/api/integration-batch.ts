import { FEATURES, IntegrationBatch, type IntegrationItem } from "./schemas";
import { validationFailed, zodProblems } from "./problem";

/**
 * Validates a Create/Update batch as a whole: every problem of every item is listed. A batch whose only
 * problems are unknown `feature` values gets the more precise code `unsupported_feature`.
 */
export function parseIntegrationBatch(input: unknown): IntegrationItem[] {
  const result = IntegrationBatch.safeParse(input);
  if (result.success) return result.data;
  const problems = zodProblems(result.error);
  const onlyFeatures = result.error.issues.every((i) => i.path.length === 2 && i.path[1] === "feature");
  if (onlyFeatures) {
    throw validationFailed(
      problems.map((p) => ({ ...p, message: `is not supported (supported: ${FEATURES.join(", ")})` })),
      "unsupported_feature",
    );
  }
  throw validationFailed(problems);
}
