import { FEATURES } from "@/lib/domain/vocabulary";
import { DeleteBatch } from "./schemas/integrations";
import { validationFailed, zodProblems } from "./problem";
import type { z } from "zod";

/**
 * Validates a Delete resources batch as a whole, like Create/Update (integration-batch.ts): every problem is
 * listed, and a batch whose only problems are unknown `feature` names is `unsupported_feature`.
 */
export function parseDeleteBatch(input: unknown): z.output<typeof DeleteBatch> {
  const result = DeleteBatch.safeParse(input);
  if (result.success) return result.data;
  const problems = zodProblems(result.error);
  const given = (path: PropertyKey[]) => (Array.isArray(input) ? (input[path[0] as number] as { feature?: unknown } | null)?.feature : undefined);
  const onlyFeatures = result.error.issues.every((i) => i.path.length === 2 && i.path[1] === "feature" && typeof given(i.path) === "string");
  if (onlyFeatures) {
    throw validationFailed(
      problems.map((p) => ({ ...p, message: `is not supported (supported: ${FEATURES.join(", ")})` })),
      "unsupported_feature",
    );
  }
  throw validationFailed(problems);
}
