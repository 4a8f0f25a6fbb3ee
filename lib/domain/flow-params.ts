import type { FieldProblem } from "@/lib/errors";

/**
 * The one place for an earning flow's declared parameters (API.md §4, "Execute a custom earning flow"): what a
 * flow may be sent, and the check of a run's params against it. A run may carry only declared names, each a
 * number within its bounds, so nothing the program did not declare reaches the ledger. Pure (no database):
 * the dashboard's form, the CLI and the domain share these rules.
 */

export const FLOW_PARAM_TYPES = ["number"] as const;
export type FlowParamType = (typeof FLOW_PARAM_TYPES)[number];

/** At most this many parameters per flow, and so per run. */
export const MAX_FLOW_PARAMS = 10;
/** A parameter name: a JSON key an integrator can type, and safe in a JSON path (`params.amount`). */
export const FLOW_PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Bounds of every value (the range a per-unit param always had). */
export const MIN_PARAM_VALUE = 0;
export const MAX_PARAM_VALUE = 1_000_000_000;

export interface FlowParam {
  name: string;
  type: FlowParamType;
  min: number;
  max: number;
  /** A run without it is refused; a per-unit param is always required. */
  required: boolean;
}

/** A declaration as a person writes it: only the name is needed. */
export interface FlowParamInput {
  name: string;
  type?: FlowParamType;
  min?: number | null;
  max?: number | null;
  required?: boolean | null;
}

/**
 * Completes a flow's declaration (defaults: number, 0…1,000,000,000, required) and checks it as a whole:
 * unique names, min ≤ max, and the per-unit param (if any) declared and required. An undeclared per-unit
 * param is declared with the defaults, so `--param amount` alone keeps working.
 */
export function declareFlowParams(
  input: FlowParamInput[],
  perUnitParam: string | null,
): { params: FlowParam[]; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const params: FlowParam[] = input.map((p) => ({
    name: p.name,
    type: p.type ?? "number",
    min: p.min ?? MIN_PARAM_VALUE,
    max: p.max ?? MAX_PARAM_VALUE,
    required: p.required ?? true,
  }));
  const seen = new Set<string>();
  params.forEach((p, i) => {
    if (!FLOW_PARAM_NAME.test(p.name))
      problems.push({
        path: `params[${i}].name`,
        message: "must be a parameter name (letters, digits, _; at most 64)",
      });
    else if (seen.has(p.name)) problems.push({ path: `params[${i}].name`, message: "is declared twice" });
    seen.add(p.name);
    for (const bound of ["min", "max"] as const) {
      const v = p[bound];
      if (!Number.isFinite(v) || v < MIN_PARAM_VALUE || v > MAX_PARAM_VALUE) {
        problems.push({
          path: `params[${i}].${bound}`,
          message: `must be a number from ${MIN_PARAM_VALUE} to ${MAX_PARAM_VALUE}`,
        });
      }
    }
    if (p.min > p.max) problems.push({ path: `params[${i}].max`, message: "must not be less than min" });
  });
  if (perUnitParam) {
    const index = params.findIndex((p) => p.name === perUnitParam);
    if (index < 0)
      params.push({ name: perUnitParam, type: "number", min: MIN_PARAM_VALUE, max: MAX_PARAM_VALUE, required: true });
    else if (!params[index]!.required)
      problems.push({ path: `params[${index}].required`, message: "must be true for the per-unit param" });
  }
  if (params.length > MAX_FLOW_PARAMS)
    problems.push({ path: "params", message: `must declare at most ${MAX_FLOW_PARAMS} parameters` });
  return { params, problems };
}

/**
 * Checks a run's params against the flow's declaration. Returns the declared values only, or every problem by
 * path: an undeclared name, a missing required one, a value out of bounds.
 */
export function checkRunParams(
  declared: FlowParam[],
  given: Record<string, unknown>,
): { values: Record<string, number>; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const values: Record<string, number> = {};
  const byName = new Map(declared.map((p) => [p.name, p]));
  for (const [name, value] of Object.entries(given)) {
    const param = byName.get(name);
    if (!param) {
      problems.push({
        path: `params.${name}`,
        message: declared.length
          ? `is not a parameter of this flow (it takes ${declared.map((p) => p.name).join(", ")})`
          : "is not a parameter of this flow (it takes none)",
      });
    } else if (typeof value !== "number" || !Number.isFinite(value) || value < param.min || value > param.max) {
      problems.push({ path: `params.${name}`, message: `must be a number from ${param.min} to ${param.max}` });
    } else {
      values[name] = value;
    }
  }
  for (const p of declared) {
    if (p.required && !Object.hasOwn(given, p.name))
      problems.push({ path: `params.${p.name}`, message: "is required" });
  }
  return { values, problems };
}

/**
 * A flow's stored declaration, as read back from its JSON column. Anything malformed is a bug (the column is
 * only written through declareFlowParams), so it fails loudly rather than accepting params.
 */
export function storedFlowParams(json: unknown): FlowParam[] {
  if (!Array.isArray(json)) throw new Error("earning flow params: not an array");
  return json.map((p: FlowParam) => {
    if (
      typeof p?.name !== "string" ||
      typeof p.min !== "number" ||
      typeof p.max !== "number" ||
      typeof p.required !== "boolean"
    ) {
      throw new Error("earning flow params: malformed declaration");
    }
    return { name: p.name, type: "number", min: p.min, max: p.max, required: p.required };
  });
}

/**
 * The CLI's `--params` text: comma-separated `name[?][:min..max]`, `?` marking an optional param, e.g.
 * `amount:0..100000,store?:1..9999`. Returns the declarations, or the first malformed item and why.
 */
export function parseFlowParamsFlag(text: string): { params: FlowParamInput[] } | { message: string } {
  const params: FlowParamInput[] = [];
  for (const raw of text.split(",")) {
    const item = raw.trim();
    if (!item) continue;
    const m = /^([^?:]+)(\?)?(?::(\d+(?:\.\d+)?)\.\.(\d+(?:\.\d+)?))?$/.exec(item);
    if (!m) return { message: `"${item.slice(0, 80)}" is not name[?][:min..max]` };
    params.push({
      name: m[1]!.trim(),
      required: !m[2],
      ...(m[3] !== undefined ? { min: Number(m[3]), max: Number(m[4]) } : {}),
    });
  }
  return { params };
}

/** How the dashboard shows a declaration: `amount 0–100,000`, `store 1–9,999 (optional)`. */
export function describeFlowParam(p: FlowParam): string {
  const n = (v: number) => v.toLocaleString("en-US");
  return `${p.name} ${n(p.min)}–${n(p.max)}${p.required ? "" : " (optional)"}`;
}
