import "@/lib/zod-browser";
import { z } from "zod";
import { MAX_POINTS } from "@/lib/api/schemas/common";
import { EARNING_FLOW_KEY } from "@/lib/domain/vocabulary";
import {
  declareFlowParams,
  FLOW_PARAM_NAME,
  MAX_FLOW_PARAMS,
  MAX_PARAM_VALUE,
  MIN_PARAM_VALUE,
} from "@/lib/domain/flow-params";
import { MAX_PENDING_DAYS, pendingOverrideProblem } from "@/lib/domain/pending-rules";
import { Cost } from "./rewards";

/** Earning flows: a flow's definition, as created and as edited, and switching it on or off. */

const Cap = z
  .number("must be a whole number of points")
  .int("must be a whole number of points")
  .min(1, "must be at least 1")
  .max(MAX_POINTS)
  .nullable()
  .optional();

const ParamBound = z
  .number("must be a number")
  .min(MIN_PARAM_VALUE, `must be at least ${MIN_PARAM_VALUE}`)
  .max(MAX_PARAM_VALUE, `must be at most ${MAX_PARAM_VALUE.toLocaleString("en-US")}`)
  .nullable()
  .optional();

/** One declared run parameter; bounds default to 0…1,000,000,000 and `required` to true (lib/domain/flow-params.ts). */
export const FlowParamDeclaration = z.strictObject({
  name: z.string().trim().regex(FLOW_PARAM_NAME, "must be a parameter name (letters, digits, _)"),
  type: z.literal("number", "must be number").optional(),
  min: ParamBound,
  max: ParamBound,
  required: z.boolean("must be true or false").nullable().optional(),
});

/** How a flow earns and what a run may send: everything of a flow but its key. */
const FlowDefinition = z.strictObject({
  name: z.string().trim().max(255).nullable().optional(),
  points: Cost.nullable().optional(),
  pointsPerUnit: z
    .number("must be a number")
    .positive("must be more than 0")
    .max(1_000_000, "must be at most 1,000,000")
    .nullable()
    .optional(),
  param: z
    .string()
    .trim()
    .regex(FLOW_PARAM_NAME, "must be a parameter name (letters, digits, _)")
    .nullable()
    .optional(),
  params: z
    .array(FlowParamDeclaration)
    .max(MAX_FLOW_PARAMS, `must declare at most ${MAX_FLOW_PARAMS} parameters`)
    .optional(),
  capPerDay: Cap,
  capTotal: Cap,
  once: z.boolean().optional(),
  // The flow's override of the program's pending setting (lib/domain/pending-rules.ts); neither: the program's.
  pendingDays: z
    .number("must be a whole number of days")
    .int("must be a whole number of days")
    .min(0, "must not be negative")
    .max(MAX_PENDING_DAYS, `must be at most ${MAX_PENDING_DAYS}`)
    .nullable()
    .optional(),
  pending: z.literal("until_confirmed", 'must be "until_confirmed"').nullable().optional(),
});

/** The rules of a definition as a whole: fixed points xor points per unit of a param, and the declaration's checks. */
const withFlowRules = <S extends z.ZodType<z.infer<typeof FlowDefinition>>>(schema: S) =>
  schema
    .refine((f) => (f.points == null) !== (f.pointsPerUnit == null), {
      message: "give either points or points per unit",
      path: ["points"],
    })
    .refine((f) => f.pointsPerUnit == null || !!f.param, { message: "points per unit needs a param", path: ["param"] })
    .refine((f) => !pendingOverrideProblem(f), {
      message: "give a pending period or until confirmed, not both",
      path: ["pendingDays"],
    })
    .superRefine((f, ctx) => {
      // The declaration as a whole (duplicates, min ≤ max, the per-unit param required), as the domain checks it.
      for (const p of declareFlowParams(f.params ?? [], f.pointsPerUnit != null ? (f.param ?? null) : null).problems) {
        ctx.addIssue({
          code: "custom",
          message: p.message,
          path: p.path
            .replace(/\]/g, "")
            .split(/[.[]/)
            .map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
        });
      }
    });

/**
 * A new earning flow, with the CLI's `earning-flow create` rules: fixed points, or points per unit of a param, and
 * the parameters a run may send (the per-unit param is declared for you if you leave it out).
 */
export const EarningFlowForm = withFlowRules(
  FlowDefinition.extend({
    key: z.string().trim().regex(EARNING_FLOW_KEY, "must be lower-case letters, digits, - or _ (at most 64)"),
  }),
);
export type EarningFlowForm = z.infer<typeof EarningFlowForm>;

/** A flow redefined from its edit drawer: the whole definition, as for a new flow, without the key. */
export const EarningFlowEdit = withFlowRules(FlowDefinition);
export type EarningFlowEdit = z.infer<typeof EarningFlowEdit>;

/** Switch a flow off (its runs are refused) or on again. */
export const EarningFlowActive = z.strictObject({ active: z.boolean("must be true or false") });
export type EarningFlowActive = z.infer<typeof EarningFlowActive>;
