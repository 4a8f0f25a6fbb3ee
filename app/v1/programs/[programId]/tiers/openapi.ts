import type { OperationSpec } from "@/lib/api/openapi/operation";
import { programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "listTiers",
  summary: "Tiers",
  description: "The program's tiers, lowest requiredPoints first.",
  tag: "Tiers",
  parameters: [programId],
  success: { status: 200, description: "The program's tiers by requiredPoints.", schema: "TierList" },
  errors: INTEGRATOR_ERRORS,
};
