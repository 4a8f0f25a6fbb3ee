/**
 * The checks that need the program's declarations, beyond the shapes the edge's zod schemas check: an event against
 * its declared type, and a campaign's definition against the event type it is triggered by (unknown attributes,
 * operators that do not apply, values of the wrong type, `per` naming no number). Each returns every problem with
 * its JSON path. Pure.
 */
import { checkConditions, isIsoTime, type FieldProblem } from "./conditions";
import {
  isLifecycle,
  type AttributeDeclaration,
  type CampaignDefinition,
  type CustomerAttributes,
  type EventAttributes,
} from "./definition";
import { pendingOverrideProblem } from "../pending-rules";

function checkValue(decl: AttributeDeclaration, v: unknown, path: string, problems: FieldProblem[]) {
  switch (decl.type) {
    case "number":
      if (typeof v !== "number" || !Number.isFinite(v)) problems.push({ path, message: "must be a number" });
      return;
    case "string":
      if (typeof v !== "string") problems.push({ path, message: "must be a string" });
      return;
    case "boolean":
      if (typeof v !== "boolean") problems.push({ path, message: "must be true or false" });
      return;
    case "datetime":
      if (typeof v !== "string" || !isIsoTime(v)) problems.push({ path, message: "must be an ISO 8601 time" });
      return;
    case "items":
      if (!Array.isArray(v)) return problems.push({ path, message: "must be an array of objects" }) && undefined;
      v.forEach((item, i) => {
        if (typeof item !== "object" || item === null || Array.isArray(item))
          return problems.push({ path: `${path}[${i}]`, message: "must be an object" });
        checkObject(decl.fields, item as Record<string, unknown>, `${path}[${i}].`, problems);
      });
  }
}

function checkObject(
  declared: Record<string, AttributeDeclaration>,
  value: Record<string, unknown>,
  prefix: string,
  problems: FieldProblem[],
) {
  for (const [name, decl] of Object.entries(declared))
    if (decl.required && (value[name] === undefined || value[name] === null))
      problems.push({ path: `${prefix}${name}`, message: "is required" });
  for (const [name, v] of Object.entries(value)) {
    const decl = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (!decl) problems.push({ path: `${prefix}${name}`, message: "is not declared by the event type" });
    else if (v !== null) checkValue(decl, v, `${prefix}${name}`, problems);
  }
}

/** Every problem of an event's attributes against its type's declaration, by path under `attributes`. */
export function checkEventAttributes(declared: EventAttributes, attributes: Record<string, unknown>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  checkObject(declared, attributes, "attributes.", problems);
  return problems;
}

/** Every problem of a campaign definition against the declaration of its trigger's event type. */
export function checkCampaign(
  definition: CampaignDefinition,
  declared: EventAttributes,
  customer: CustomerAttributes = {},
): FieldProblem[] {
  const problems = definition.conditions
    ? checkConditions(definition.conditions, declared, "conditions", customer)
    : [];
  definition.effects.forEach((e, i) => {
    if (e.type !== "award_points" || !("per" in e)) return;
    const name = e.per.startsWith("event.") ? e.per.slice("event.".length) : "";
    const decl = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (decl?.type !== "number")
      problems.push({ path: `effects[${i}].per`, message: "must name a number attribute of the event: event.<name>" });
  });
  const both = pendingOverrideProblem(definition);
  if (both) problems.push(both);
  if (isLifecycle(definition.trigger) && (definition.pendingDays != null || definition.pending != null))
    problems.push({
      path: definition.pending != null ? "pending" : "pendingDays",
      message: "a lifecycle campaign's points are never pending (they belong to no order): leave it out",
    });
  const { startsAt, endsAt } = definition.schedule;
  if (startsAt && endsAt && Date.parse(startsAt) >= Date.parse(endsAt))
    problems.push({ path: "schedule.endsAt", message: "must be after startsAt" });
  return problems;
}
