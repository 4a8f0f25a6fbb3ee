import type { CampaignDefinition, Condition } from "@/lib/domain/campaigns/definition";
import { OP_LABELS } from "./builder-model";

/** A campaign's definition in words, for its page's read view (the JSON is one click away). Pure. */

const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

const value = (v: unknown) => (Array.isArray(v) ? `[${v.map(String).join(", ")}]` : JSON.stringify(v));

export function describeCondition(node: Condition | null): string {
  if (!node) return "always";
  if ("not" in node) return `not (${describeCondition(node.not)})`;
  if ("all" in node) return node.all.length ? node.all.map(describeCondition).join(" and ") : "always";
  if ("any" in node) return node.any.length ? `(${node.any.map(describeCondition).join(" or ")})` : "never";
  const window = (node as { window?: unknown }).window;
  const attr = typeof window === "string" ? `${node.attr} within ${window}` : node.attr;
  if (node.op === "exists") return `${attr} ${node.value === false ? "is absent" : "exists"}`;
  return `${attr} ${OP_LABELS[node.op]} ${value(node.value)}`;
}

export function describeEffects(d: CampaignDefinition): string {
  return d.effects
    .map((e) => {
      if (e.type === "multiply_points") return `multiply points × ${e.factor}`;
      if (e.type === "assign_coupon") return "assign a coupon";
      const tier = e.tierFactor === false ? " (no tier factor)" : "";
      if ("points" in e) return `award ${e.points} points${tier}`;
      return `award ${e.rate} × ${e.per}, rounded ${e.round}${e.max ? `, at most ${e.max}` : ""}${tier}`;
    })
    .join("; ");
}

export function describeSchedule(d: CampaignDefinition): string {
  const s = d.schedule;
  const parts: string[] = [];
  if (s.startsAt) parts.push(`from ${s.startsAt}`);
  if (s.endsAt) parts.push(`until ${s.endsAt}`);
  if (s.daysOfWeek?.length) parts.push(`on ${s.daysOfWeek.map((n) => DAYS[n - 1]).join(", ")}`);
  if (s.hours) parts.push(`${s.hours.from}–${s.hours.to}`);
  return parts.length ? parts.join(", ") : "always";
}

export function describeLimits(d: CampaignDefinition): string {
  const parts: string[] = [];
  if (d.limits.perCustomer) parts.push(`${d.limits.perCustomer.count} per customer per ${d.limits.perCustomer.window}`);
  if (d.limits.budgetPoints !== undefined) parts.push(`budget ${d.limits.budgetPoints.toLocaleString("en-US")} points`);
  return parts.length ? parts.join(", ") : "none";
}
