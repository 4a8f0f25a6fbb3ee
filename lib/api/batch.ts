import "server-only";
import type { z } from "zod";
import { FEATURES } from "@/lib/domain/vocabulary";
import { DeleteBatch, IntegrationBatch } from "./schemas/integrations";
import { validationFailed, zodProblems } from "./problem";

/**
 * The one place where a resources batch (Create/Update and Delete, spec §4.2) is validated as a whole: every
 * problem of every item is listed, and a batch whose only problems are unknown `feature` values gets the more
 * precise code `unsupported_feature`.
 */
export function parseBatch<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = zodProblems(result.error);
  // Only features that are strings other than the supported ones; a missing or non-string feature is validation_failed.
  const given = (path: PropertyKey[]) =>
    Array.isArray(input) ? (input[path[0] as number] as { feature?: unknown } | null)?.feature : undefined;
  const onlyFeatures = result.error.issues.every(
    (i) => i.path.length === 2 && i.path[1] === "feature" && typeof given(i.path) === "string",
  );
  if (onlyFeatures) {
    throw validationFailed(
      problems.map((p) => ({ ...p, message: `is not supported (supported: ${FEATURES.join(", ")})` })),
      "unsupported_feature",
    );
  }
  throw validationFailed(problems);
}

export const parseIntegrationBatch = (input: unknown) => parseBatch(IntegrationBatch, input);
export const parseDeleteBatch = (input: unknown) => parseBatch(DeleteBatch, input);
