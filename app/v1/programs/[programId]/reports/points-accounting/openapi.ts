import type { OperationSpec } from "@/lib/api/openapi/operation";
import { programId } from "@/lib/api/openapi/parameters";
import { INTEGRATOR_ERRORS } from "@/lib/api/openapi/problems";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const GET: OperationSpec = {
  operationId: "getPointsAccounting",
  summary: "Points accounting",
  description:
    "The program's points as books, per day of its time zone: outstanding at the start, every flow (earned, pending created, matured and cancelled, reversed, redeemed, redemptions cancelled, expired, adjusted), outstanding at the end — in points and, once the program has a value per point, in money (exact decimals) — and breakage (expired ÷ earned over the trailing 365 days). For every day, closing = opening + earned − reversed − redeemed + redemptionsCancelled − expired + adjusted. An erased customer's balance is written off on the day of the erasure (`erased`, part of `adjusted`). Days up to `rolledUpThrough` come from the daily aggregates, the later ones from the ledger; both answer the same. At most 731 days.",
  tag: "Reports",
  parameters: [
    programId,
    {
      name: "from",
      in: "query",
      required: true,
      description: "The first day (YYYY-MM-DD), in the program's time zone.",
      schema: { type: "string", format: "date" },
    },
    {
      name: "to",
      in: "query",
      required: true,
      description: "The last day (YYYY-MM-DD, included), at most 731 days after `from`.",
      schema: { type: "string", format: "date" },
    },
  ],
  success: { status: 200, description: "The days and the period's totals.", schema: "PointsAccounting" },
  errors: [
    ...INTEGRATOR_ERRORS,
    ["validation_failed", "a missing or invalid day, `to` before `from`, or over 731 days"],
  ],
};
