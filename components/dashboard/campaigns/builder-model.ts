import {
  CONDITION_OPS,
  CUSTOMER_ATTRIBUTES,
  SEGMENT_ATTR,
  type AttributeType,
  type Condition,
  type ConditionOp,
  type CustomerAttributes,
  type EventAttributes,
} from "@/lib/domain/campaigns/definition";
import { OPS_BY_TYPE } from "@/lib/domain/campaigns/conditions";

export { OPS_BY_TYPE };

/**
 * The condition builders' rows (campaigns and segments) and the JSON they stand for (API.md "Campaigns and events",
 * "Segments"): a condition tree as nested groups of rows, effects as rows, and the conversions both ways (fields →
 * JSON to send; JSON → fields for the JSON view and for editing a draft). Each row knows the JSON path the server
 * names its problems by. Client-safe: pure functions and types.
 */

export type ScalarType = Exclude<AttributeType, "items">;

/** Where the attribute picker lists a choice. */
export type ChoiceGroup = "Event" | "Customer" | "Event history";

/** An attribute a condition may name, with its type: the trigger's attributes, its items' fields, the customer's. */
export interface AttributeChoice {
  attr: string;
  type: ScalarType;
  label: string;
  group: ChoiceGroup;
  /** The operators it allows when fewer than its type's (`customer.segment`: in, nin). */
  ops?: readonly ConditionOp[];
  /** A segment's event-history leaf: it takes a `window` (an ISO 8601 duration). */
  window?: boolean;
}

const customerChoice = (name: string, type: ScalarType): AttributeChoice => ({
  attr: `customer.${name}`,
  type,
  label: `customer: ${name}`,
  group: "Customer",
});

/**
 * A campaign's choices: the trigger's attributes (and its items' fields), the customer's fields, the program's
 * declared customer attributes, and `customer.segment` when the program has segments.
 */
export function attributeChoices(
  declared: EventAttributes | undefined,
  customer: CustomerAttributes = {},
  segments = false,
): AttributeChoice[] {
  const choices: AttributeChoice[] = [];
  for (const [name, d] of Object.entries(declared ?? {})) {
    if (d.type === "items")
      for (const [field, f] of Object.entries(d.fields))
        choices.push({
          attr: `event.${name}[].${field}`,
          type: f.type,
          label: `event: any ${name} item's ${field}`,
          group: "Event",
        });
    else choices.push({ attr: `event.${name}`, type: d.type, label: `event: ${name}`, group: "Event" });
  }
  for (const [name, type] of Object.entries({ ...CUSTOMER_ATTRIBUTES, ...customer }))
    choices.push(customerChoice(name, type));
  if (segments)
    choices.push({
      attr: SEGMENT_ATTR,
      type: "string",
      label: "customer: segment",
      group: "Customer",
      ops: ["in", "nin"],
    });
  return choices;
}

/**
 * A segment filter's choices (lib/domain/segments/filter.ts): the customer's fields (`fields`, as the server lists
 * them), the declared customer attributes, and each event type's history — its count, the sum of each number
 * attribute and its last time — each with an optional window.
 */
export function filterChoices(
  fields: Record<string, ScalarType>,
  customer: CustomerAttributes,
  eventTypes: readonly { type: string; attributes: EventAttributes }[],
): AttributeChoice[] {
  const choices = Object.entries({ ...fields, ...customer }).map(([name, type]) => customerChoice(name, type));
  for (const { type, attributes } of eventTypes) {
    const history = (what: string, t: ScalarType, label: string) =>
      choices.push({ attr: `events.${type}.${what}`, type: t, label, group: "Event history", window: true });
    history("count", "number", `${type}: how many`);
    for (const [name, d] of Object.entries(attributes))
      if (d.type === "number") history(`sum.${name}`, "number", `${type}: sum of ${name}`);
    history("lastAt", "datetime", `${type}: last time`);
  }
  return choices;
}

/** The operators a row may use with `choice` (all of them for an attribute the picker does not know). */
export const opsOf = (choice: AttributeChoice | undefined): readonly ConditionOp[] =>
  choice?.ops ?? (choice ? OPS_BY_TYPE[choice.type] : CONDITION_OPS);

export const OP_LABELS: Record<ConditionOp, string> = {
  eq: "is",
  ne: "is not",
  gt: ">",
  gte: "≥",
  lt: "<",
  lte: "≤",
  in: "is one of",
  nin: "is none of",
  contains: "contains",
  exists: "exists",
};

export interface LeafRow {
  kind: "leaf";
  key: number;
  not: boolean;
  attr: string;
  op: ConditionOp;
  /** As typed: a list is comma-separated; `exists` takes "true" or "false". */
  value: string;
  /** A segment's event-history leaf: its window as typed (empty: all of history). */
  window: string;
}
export interface GroupRow {
  kind: "group";
  key: number;
  not: boolean;
  mode: "all" | "any";
  children: ConditionRow[];
}
export type ConditionRow = LeafRow | GroupRow;

let nextKey = 1;
export const newKey = () => nextKey++;

export const emptyLeaf = (attr = "", op: ConditionOp = "eq"): LeafRow => ({
  kind: "leaf",
  key: newKey(),
  not: false,
  attr,
  op,
  value: "",
  window: "",
});
export const emptyGroup = (mode: "all" | "any" = "all", children: ConditionRow[] = []): GroupRow => ({
  kind: "group",
  key: newKey(),
  not: false,
  mode,
  children,
});

/** A typed value for an attribute of `type`: numbers and booleans parsed, others as typed (the server says what is wrong). */
function scalar(text: string, type: ScalarType | undefined): unknown {
  const t = text.trim();
  if (type === "number") return t === "" || Number.isNaN(Number(t)) ? t : Number(t);
  if (type === "boolean") return t === "true" ? true : t === "false" ? false : t;
  return t;
}

function leafValue(row: LeafRow, types: Map<string, ScalarType>): unknown {
  const type = types.get(row.attr);
  if (row.op === "exists") return row.value.trim() !== "false";
  if (row.op === "in" || row.op === "nin")
    return row.value
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v !== "")
      .map((v) => scalar(v, type));
  return scalar(row.value, type);
}

/** The JSON of a row (a `not` wraps it). */
function nodeOf(row: ConditionRow, types: Map<string, ScalarType>): Condition {
  const window = row.kind === "leaf" ? row.window.trim() : "";
  const node: Condition =
    row.kind === "leaf"
      ? { attr: row.attr, op: row.op, value: leafValue(row, types), ...(window ? { window } : {}) }
      : row.mode === "all"
        ? { all: row.children.map((c) => nodeOf(c, types)) }
        : { any: row.children.map((c) => nodeOf(c, types)) };
  return row.not ? { not: node } : node;
}

/** The tree the root group stands for; an empty root is "always" (null). */
export function conditionsOf(root: GroupRow, choices: AttributeChoice[]): Condition | null {
  if (root.children.length === 0 && !root.not) return null;
  return nodeOf(root, new Map(choices.map((c) => [c.attr, c.type])));
}

/**
 * The JSON path of a row's node (past its `not`, when negated), as the server's problems name it
 * (`conditions.all[2].not.any[0]`); `parentPath` is the parent's own path, past its `not`.
 */
export function childPath(parent: GroupRow, parentPath: string, index: number, child: ConditionRow): string {
  const inner = `${parentPath}.${parent.mode}[${index}]`;
  return child.not ? `${inner}.not` : inner;
}
/** The root group's path: `base` is where the tree sits in the body (`conditions`, a segment's `filter`). */
export const rootPath = (root: GroupRow, base = "conditions") => (root.not ? `${base}.not` : base);

const valueText = (value: unknown): string =>
  Array.isArray(value) ? value.map((v) => String(v)).join(", ") : value === undefined ? "" : String(value);

/** Rows for a condition tree (the JSON view, a draft being edited). */
export function rowsOf(node: Condition | null | undefined): GroupRow {
  if (!node) return emptyGroup();
  const row = rowOf(node);
  return row.kind === "group" ? row : emptyGroup("all", [row]);
}
function rowOf(node: Condition): ConditionRow {
  if ("not" in node) {
    const inner = rowOf(node.not);
    // A double negation is kept as a group around the inner row.
    return inner.not ? { ...emptyGroup("all", [inner]), not: true } : { ...inner, not: true };
  }
  if ("all" in node) return emptyGroup("all", node.all.map(rowOf));
  if ("any" in node) return emptyGroup("any", node.any.map(rowOf));
  const window = (node as { window?: unknown }).window;
  return {
    ...emptyLeaf(node.attr, node.op),
    value: valueText(node.value),
    window: typeof window === "string" ? window : "",
  };
}

/** An effect row; fields as typed. */
export interface EffectRow {
  key: number;
  kind: "fixed" | "per" | "multiply" | "coupon";
  points: string;
  per: string;
  rate: string;
  round: "down" | "nearest" | "up";
  max: string;
  factor: string;
  couponPoolId: string;
  tierFactor: boolean;
}

export const emptyEffect = (kind: EffectRow["kind"] = "fixed"): EffectRow => ({
  key: newKey(),
  kind,
  points: "",
  per: "",
  rate: "",
  round: "down",
  max: "",
  factor: "",
  couponPoolId: "",
  tierFactor: true,
});

const num = (text: string): number | undefined => {
  const t = text.trim();
  return t === "" ? undefined : Number(t);
};

export function effectOf(row: EffectRow): Record<string, unknown> {
  const tier = row.tierFactor ? {} : { tierFactor: false };
  switch (row.kind) {
    case "fixed":
      return { type: "award_points", points: num(row.points), ...tier };
    case "per":
      return {
        type: "award_points",
        per: row.per,
        rate: num(row.rate),
        round: row.round,
        ...(num(row.max) === undefined ? {} : { max: num(row.max) }),
        ...tier,
      };
    case "multiply":
      return { type: "multiply_points", factor: num(row.factor) };
    case "coupon":
      return { type: "assign_coupon", couponPoolId: row.couponPoolId };
  }
}

export function effectRowOf(e: Record<string, unknown>): EffectRow {
  const text = (v: unknown) => (v === undefined || v === null ? "" : String(v));
  const row = emptyEffect();
  if (e.type === "multiply_points") return { ...row, kind: "multiply", factor: text(e.factor) };
  if (e.type === "assign_coupon") return { ...row, kind: "coupon", couponPoolId: text(e.couponPoolId) };
  const tierFactor = e.tierFactor !== false;
  if (e.per !== undefined)
    return {
      ...row,
      kind: "per",
      per: text(e.per),
      rate: text(e.rate),
      round: (e.round as EffectRow["round"]) ?? "down",
      max: text(e.max),
      tierFactor,
    };
  return { ...row, kind: "fixed", points: text(e.points), tierFactor };
}
