import type { OperationSpec } from "@/lib/api/openapi/operation";
import { programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "listRewards",
  summary: "Rewards",
  description: "The program's active rewards, cheapest first.",
  tag: "Rewards",
  parameters: [programId],
  success: { status: 200, description: "Active rewards, cheapest first.", schema: "RewardList" },
  errors: INTEGRATOR_ERRORS,
};
