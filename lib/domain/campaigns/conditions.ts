/**
 * The one place a campaign's condition tree is checked (against the event type it is triggered by) and decided
 * (against an event and a customer). Pure. A tree is compiled once into closures (cached per tree object: versions
 * are immutable), so evaluating it does no parsing.
 *
 * Semantics: a leaf on an attribute the event does not have is false, except `exists` with value false. On
 * `event.<items>[].<field>` a leaf is true when some item's field satisfies it (no items: false, whatever the op). `contains` is a substring test on
 * strings. `datetime` values compare as instants. `in`/`nin` take an array of values of the attribute's type.
 */
import {
  CONDITION_OPS,
  CUSTOMER_ATTRIBUTES,
  SEGMENT_ATTR,
  type AttributeType,
  type CustomerAttributes,
  type Condition,
  type ConditionLeaf,
  type ConditionOp,
  type EventAttributes,
} from "./definition";

export interface FieldProblem {
  path: string;
  message: string;
}

/** What a condition reads: the event's attributes and the customer's state. */
export interface ConditionContext {
  attributes: Record<string, unknown>;
  customer: {
    tier: string | null;
    balance: number;
    memberDays: number;
    language: string | null;
    /** Declared customer attributes' values, by name. */
    custom?: Record<string, unknown>;
    /** The ids and names of the segments the customer is in (read only when a tree names customer.segment). */
    segments?: readonly string[];
  };
}

export type ScalarType = Exclude<AttributeType, "items">;

/** Which operators each attribute type allows. */
export const OPS_BY_TYPE: Record<ScalarType, readonly ConditionOp[]> = {
  number: ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "exists"],
  string: ["eq", "ne", "in", "nin", "contains", "exists"],
  boolean: ["eq", "ne", "exists"],
  datetime: ["eq", "ne", "gt", "gte", "lt", "lte", "exists"],
};

const ATTR = /^(event|customer)\.([A-Za-z_][A-Za-z0-9_]*)(?:\[\]\.([A-Za-z_][A-Za-z0-9_]*))?$/;

/** An attribute path resolved against the declaration: where to read it and its type. */
export interface ResolvedAttr {
  scope: "event" | "customer";
  name: string;
  field: string | null;
  type: ScalarType;
  /** The ops it allows, when fewer than its type's (`customer.segment`: in and nin). */
  ops?: readonly ConditionOp[];
}

/**
 * Resolves `attr` against the event type's declaration and the program's declared customer attributes; a string is
 * the problem. `customer.segment` (the segments, by id or name, the customer is in) takes `in` and `nin` only.
 */
export function resolveAttr(
  attr: string,
  declared: EventAttributes,
  customer: CustomerAttributes = {},
): ResolvedAttr | string {
  if (attr === SEGMENT_ATTR)
    return { scope: "customer", name: "segment", field: null, type: "string", ops: ["in", "nin"] };
  const m = ATTR.exec(attr);
  if (!m) return "must be event.<attribute>, event.<items>[].<field> or customer.<field>";
  const [, scope, name, field] = m as unknown as [string, "event" | "customer", string, string | undefined];
  if (scope === "customer") {
    if (field === undefined && name in CUSTOMER_ATTRIBUTES)
      return { scope, name, field: null, type: CUSTOMER_ATTRIBUTES[name as keyof typeof CUSTOMER_ATTRIBUTES] };
    const custom = Object.hasOwn(customer, name) ? customer[name] : undefined;
    if (field === undefined && custom) return { scope, name, field: null, type: custom };
    return `must name a customer field (${Object.keys(CUSTOMER_ATTRIBUTES).join(", ")}, segment) or a declared customer attribute`;
  }
  const decl = Object.hasOwn(declared, name) ? declared[name] : undefined;
  if (!decl) return `names an attribute the event type does not declare: ${name}`;
  if (decl.type === "items") {
    if (field === undefined) return `is a list of items: name a field, ${name}[].<field>`;
    const f = Object.hasOwn(decl.fields, field) ? decl.fields[field] : undefined;
    if (!f) return `names a field the items of ${name} do not declare: ${field}`;
    return { scope, name, field, type: f.type };
  }
  if (field !== undefined) return `${name} is not a list of items`;
  return { scope, name, field: null, type: decl.type };
}

export const isValueOf = (type: ScalarType, v: unknown) =>
  type === "number"
    ? typeof v === "number" && Number.isFinite(v)
    : type === "boolean"
      ? typeof v === "boolean"
      : type === "datetime"
        ? typeof v === "string" && isIsoTime(v)
        : typeof v === "string";

export const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
export const isIsoTime = (v: string) => ISO_TIME.test(v) && !Number.isNaN(Date.parse(v));

const MAX_DEPTH = 8;
const MAX_LEAVES = 100;

/** How a tree's leaves are read: the attribute resolver, and the leaf keys beside attr, op and value. */
export interface LeafRules {
  resolve: (attr: string) => ResolvedAttr | string;
  /** Checks the leaf's other keys (e.g. a segment's `window`); absent: none is allowed. */
  extraKeys?: Record<string, (value: unknown, at: string, resolved: ResolvedAttr | string) => string | null>;
}

/** Every problem of a condition tree, by JSON path under `path`, for the event type it is triggered by. */
export function checkConditions(
  tree: unknown,
  declared: EventAttributes,
  path = "conditions",
  customer: CustomerAttributes = {},
): FieldProblem[] {
  return checkTree(tree, path, { resolve: (attr) => resolveAttr(attr, declared, customer) });
}

/** Every problem of a condition tree whose leaves `rules` reads, by JSON path under `path`. */
export function checkTree(tree: unknown, path: string, rules: LeafRules): FieldProblem[] {
  const problems: FieldProblem[] = [];
  let leaves = 0;
  const visit = (node: unknown, at: string, depth: number) => {
    if (depth > MAX_DEPTH) return problems.push({ path: at, message: `nests deeper than ${MAX_DEPTH} levels` });
    if (typeof node !== "object" || node === null || Array.isArray(node))
      return problems.push({ path: at, message: "must be an object: all, any, not or a leaf {attr, op, value}" });
    const keys = Object.keys(node);
    const n = node as Record<string, unknown>;
    if (keys.length === 1 && (keys[0] === "all" || keys[0] === "any")) {
      const list = n[keys[0]];
      if (!Array.isArray(list) || list.length === 0)
        return problems.push({ path: `${at}.${keys[0]}`, message: "must be a non-empty array" });
      list.forEach((child, i) => visit(child, `${at}.${keys[0]}[${i}]`, depth + 1));
      return;
    }
    if (keys.length === 1 && keys[0] === "not") return visit(n.not, `${at}.not`, depth + 1);
    const extra = rules.extraKeys ?? {};
    for (const k of keys)
      if (k !== "attr" && k !== "op" && k !== "value" && !Object.hasOwn(extra, k))
        problems.push({ path: `${at}.${k}`, message: "is not allowed" });
    if (++leaves > MAX_LEAVES) return problems.push({ path: at, message: `more than ${MAX_LEAVES} leaves` });
    if (typeof n.attr !== "string") return problems.push({ path: `${at}.attr`, message: "must be a string" });
    const resolved = rules.resolve(n.attr);
    if (typeof resolved === "string") problems.push({ path: `${at}.attr`, message: resolved });
    for (const [k, check] of Object.entries(extra)) {
      const message = check(n[k], `${at}.${k}`, resolved);
      if (message) problems.push({ path: `${at}.${k}`, message });
    }
    if (typeof n.op !== "string" || !(CONDITION_OPS as readonly string[]).includes(n.op))
      return problems.push({ path: `${at}.op`, message: `must be one of ${CONDITION_OPS.join(", ")}` });
    if (typeof resolved === "string") return;
    const op = n.op as ConditionOp;
    if (!(resolved.ops ?? OPS_BY_TYPE[resolved.type]).includes(op))
      return problems.push({
        path: `${at}.op`,
        message: resolved.ops
          ? `must be one of ${resolved.ops.join(", ")} for ${n.attr}`
          : `does not apply to a ${resolved.type} attribute`,
      });
    if (op === "exists") {
      if (typeof n.value !== "boolean") problems.push({ path: `${at}.value`, message: "must be true or false" });
    } else if (op === "in" || op === "nin") {
      if (!Array.isArray(n.value) || n.value.length === 0 || n.value.length > 1000)
        problems.push({ path: `${at}.value`, message: `must be an array of 1 to 1000 ${resolved.type} values` });
      else
        n.value.forEach((v, i) => {
          if (!isValueOf(resolved.type, v))
            problems.push({ path: `${at}.value[${i}]`, message: `must be a ${resolved.type}` });
        });
    } else if (!isValueOf(resolved.type, n.value))
      problems.push({ path: `${at}.value`, message: `must be a ${resolved.type}` });
  };
  visit(tree, path, 1);
  return problems;
}

type Test = (ctx: ConditionContext) => boolean;

/** The test of one value against a checked leaf (`undefined`: the attribute is absent). */
function valueTest(leaf: ConditionLeaf, type: ScalarType): (v: unknown) => boolean {
  if (leaf.op === "exists") return (v) => (v !== undefined && v !== null) === leaf.value;
  if (leaf.op === "contains") {
    const part = leaf.value as string;
    return (v) => typeof v === "string" && v.includes(part);
  }
  if (type === "datetime") {
    const inner = plainTest(leaf.op, leaf.value, (v) => Date.parse(v as string));
    return (v) => typeof v === "string" && inner(Date.parse(v));
  }
  const inner = plainTest(leaf.op, leaf.value, (v) => v);
  return (v) => v !== undefined && v !== null && inner(v);
}

/** The comparison of a present value (already made comparable) against the leaf's value(s). */
function plainTest(op: ConditionOp, value: unknown, comparable: (v: unknown) => unknown): (v: unknown) => boolean {
  if (op === "in" || op === "nin") {
    const set = new Set((value as unknown[]).map(comparable));
    return op === "in" ? (v) => set.has(v) : (v) => !set.has(v);
  }
  const w = comparable(value) as number;
  switch (op) {
    case "eq":
      return (v) => v === w;
    case "ne":
      return (v) => v !== w;
    case "gt":
      return (v) => (v as number) > w;
    case "gte":
      return (v) => (v as number) >= w;
    case "lt":
      return (v) => (v as number) < w;
    case "lte":
      return (v) => (v as number) <= w;
    default:
      return () => false;
  }
}

/** The type of every attribute path a checked tree names (frozen with a version, so later declarations do not matter). */
export type AttrTypes = Record<string, ScalarType>;

/** The types of the attribute paths of a checked tree. */
export function attrTypesOf(
  tree: Condition | null,
  declared: EventAttributes,
  customer: CustomerAttributes = {},
): AttrTypes {
  const types: AttrTypes = {};
  const visit = (node: Condition) => {
    if ("all" in node) node.all.forEach(visit);
    else if ("any" in node) node.any.forEach(visit);
    else if ("not" in node) visit(node.not);
    else {
      const r = resolveAttr(node.attr, declared, customer);
      if (typeof r !== "string") types[node.attr] = r.type;
    }
  };
  if (tree) visit(tree);
  return types;
}

function compileLeaf(leaf: ConditionLeaf, types: AttrTypes): Test {
  const m = ATTR.exec(leaf.attr);
  const type = types[leaf.attr];
  if (!m || !type) return () => false;
  const [, scope, name, field] = m as unknown as [string, "event" | "customer", string, string | undefined];
  if (leaf.attr === SEGMENT_ATTR) {
    const wanted = (leaf.value as string[]) ?? [];
    const some = (ctx: ConditionContext) => wanted.some((w) => ctx.customer.segments?.includes(w) ?? false);
    return leaf.op === "in" ? some : (ctx) => !some(ctx);
  }
  const test = valueTest(leaf, type);
  if (scope === "customer") {
    if (name in CUSTOMER_ATTRIBUTES) {
      const key = name as keyof typeof CUSTOMER_ATTRIBUTES;
      return (ctx) => test(ctx.customer[key]);
    }
    return (ctx) => test(ctx.customer.custom?.[name]);
  }
  if (field === undefined) return (ctx) => test(ctx.attributes[name]);
  return (ctx) => {
    const items = ctx.attributes[name];
    if (!Array.isArray(items)) return false;
    for (const item of items) if (test((item as Record<string, unknown>)[field])) return true;
    return false;
  };
}

function compileNode(node: Condition, types: AttrTypes): Test {
  const compile = (n: Condition) => compileNode(n, types);
  if ("all" in node) {
    const parts = node.all.map(compile);
    return (ctx) => {
      for (const p of parts) if (!p(ctx)) return false;
      return true;
    };
  }
  if ("any" in node) {
    const parts = node.any.map(compile);
    return (ctx) => {
      for (const p of parts) if (p(ctx)) return true;
      return false;
    };
  }
  if ("not" in node) {
    const inner = compile(node.not);
    return (ctx) => !inner(ctx);
  }
  return compileLeaf(node, types);
}

const COMPILED = new WeakMap<Condition, Test>();

/** Whether a checked tree holds for the event and customer (no tree: always). */
export function conditionHolds(tree: Condition | null, types: AttrTypes, ctx: ConditionContext): boolean {
  if (tree === null) return true;
  let test = COMPILED.get(tree);
  if (!test) COMPILED.set(tree, (test = compileNode(tree, types)));
  return test(ctx);
}
