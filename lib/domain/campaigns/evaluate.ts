/**
 * The ONE campaign evaluator: a pure function of the event, the customer's state, the campaign versions (with the
 * budget and limit use they have), the program clock's now and the program's time zone. The live path, the dry run
 * and simulations call it; the live path then applies its answer (campaigns/apply.ts).
 *
 * Rules (API.md "Campaigns and events"):
 * - Only versions triggered by the event's type take part (a lifecycle firing's type is its trigger's, definition.ts
 *   `triggerType`); they are decided by priority, highest first (ties by
 *   campaign id). Each is skipped, with the first reason that holds, when: an exclusive campaign already applied
 *   (`exclusive_campaign_applied`); the event's `occurredAt` is outside its schedule (`outside_schedule`); its
 *   conditions are false (`condition_false`); the customer used up its per-customer limit in the window of the
 *   clock's now (`customer_limit_reached`); it gives points and its budget is used up (`budget_exhausted`).
 *   An exclusive campaign that applies stops every campaign after it.
 * - Points: each `award_points` effect gives its fixed points, or `round(event.<per> × rate)`; then × the tier's
 *   factor (tier-rules.ts `withTierFactor`) unless `tierFactor: false`; then at most `max`. Each `multiply_points`
 *   effect gives floor(Σ award points of every applied campaign × (factor − 1)): extra points, named after the
 *   campaign that multiplies. A campaign's points are then cut to what is left of its budget, its effects in order,
 *   then to what is left of each of its per-customer points caps in the current windows (`capped` names the last
 *   cap that cut).
 */
import { withTierFactor } from "../tier-rules";
import { conditionHolds, type AttrTypes } from "./conditions";
import { triggerType, type CampaignDefinition, type Effect, type LimitWindow, type SkipReason } from "./definition";
import { inSchedule, zonedTime, windowKey, type ZonedTime } from "./schedule";

export interface EvaluatedEvent {
  type: string;
  occurredAt: Date;
  attributes: Record<string, unknown>;
}

export interface CustomerState {
  /** The current tier's name and factor (null: no tier). */
  tier: string | null;
  tierFactor: number | null;
  balance: number;
  memberSince: Date;
  language: string | null;
  /** Declared customer attributes' values. */
  custom?: Record<string, unknown>;
  /** Ids and names of the segments the customer is in (loaded when a campaign names customer.segment). */
  segments?: readonly string[];
}

export interface CampaignVersionState {
  campaignId: string;
  version: number;
  definition: CampaignDefinition;
  /** The attribute types its conditions were checked against (frozen with the version). */
  attrTypes: AttrTypes;
  /** Points of its budget already given (ignored without `limits.budgetPoints`). */
  budgetUsed: number;
  /** The customer's applications in the current window of `limits.perCustomer` (0 without it). */
  customerUses: number;
  /** The points the customer got from it in the current window of each of `limits.pointsCaps`, in their order. */
  customerPoints?: readonly number[];
}

export type AppliedEffect =
  { type: "award_points" | "multiply_points"; points: number } | { type: "assign_coupon"; couponPoolId: string };

export interface AppliedCampaign {
  campaignId: string;
  version: number;
  /** Σ points of its effects (after the budget cut). */
  points: number;
  /** The per-customer window it counts in (null: no per-customer limit). */
  window: string | null;
  /** With `limits.pointsCaps` only: the window of the last cap that cut its points (null: none did). */
  capped?: LimitWindow | null;
  effects: AppliedEffect[];
}

export interface Evaluation {
  applied: AppliedCampaign[];
  skipped: { campaignId: string; reason: SkipReason }[];
}

export interface EvaluationInput {
  event: EvaluatedEvent;
  customer: CustomerState;
  campaigns: readonly CampaignVersionState[];
  now: Date;
  timeZone: string;
}

const DAY_MS = 86_400_000;

/** The window of a per-customer limit that `now` falls in (null: no limit); the live path counts uses by it. */
export const limitWindow = (definition: CampaignDefinition, nowLocal: ZonedTime): string | null =>
  definition.limits.perCustomer ? windowKey(definition.limits.perCustomer.window, nowLocal) : null;

/** The order campaigns are decided in: priority, highest first, then campaign id. */
export const byPriority = (a: CampaignVersionState, b: CampaignVersionState) =>
  b.definition.priority - a.definition.priority ||
  (a.campaignId < b.campaignId ? -1 : a.campaignId > b.campaignId ? 1 : 0);

const givesPoints = (d: CampaignDefinition) => d.effects.some((e) => e.type !== "assign_coupon");

function round(x: number, mode: "down" | "nearest" | "up") {
  const clean = Math.round(x * 1e6) / 1e6; // 19.99 × 10 is 199.9 here, not 199.89999…
  return mode === "down" ? Math.floor(clean) : mode === "up" ? Math.ceil(clean) : Math.round(clean);
}

/** The points of one `award_points` effect for the event and the customer's tier factor. */
export function awardPoints(
  effect: Extract<Effect, { type: "award_points" }>,
  attributes: Record<string, unknown>,
  tierFactor: number | null,
): number {
  let base: number;
  if ("points" in effect) base = effect.points;
  else if (effect.factorFirst) {
    const v = attributes[effect.per.slice("event.".length)];
    const amount = typeof v === "number" && Number.isFinite(v) ? Math.max(0, v * effect.rate) : 0;
    const points = withTierFactor(amount, effect.tierFactor === false ? null : tierFactor);
    return effect.max !== undefined ? Math.min(points, effect.max) : points;
  } else {
    const v = attributes[effect.per.slice("event.".length)];
    base = typeof v === "number" && Number.isFinite(v) ? Math.max(0, round(v * effect.rate, effect.round)) : 0;
  }
  const points = effect.tierFactor === false ? base : withTierFactor(base, tierFactor);
  return "max" in effect && effect.max !== undefined ? Math.min(points, effect.max) : points;
}

export function evaluate(input: EvaluationInput): Evaluation {
  const { event, customer, now, timeZone } = input;
  const eventLocal = zonedTime(event.occurredAt, timeZone);
  const nowLocal = zonedTime(now, timeZone);
  const ctx = {
    attributes: event.attributes,
    customer: {
      tier: customer.tier,
      balance: customer.balance,
      memberDays: Math.floor((now.getTime() - customer.memberSince.getTime()) / DAY_MS),
      language: customer.language,
      custom: customer.custom,
      segments: customer.segments,
    },
  };
  const skipped: Evaluation["skipped"] = [];
  const chosen: CampaignVersionState[] = [];
  let exclusive = false;
  const triggered = input.campaigns.filter((c) => triggerType(c.definition.trigger) === event.type);
  if (triggered.length > 1) triggered.sort(byPriority);
  for (const c of triggered) {
    const d = c.definition;
    const reason: SkipReason | null = exclusive
      ? "exclusive_campaign_applied"
      : !inSchedule(d.schedule, event.occurredAt, eventLocal)
        ? "outside_schedule"
        : !conditionHolds(d.conditions, c.attrTypes, ctx)
          ? "condition_false"
          : d.limits.perCustomer && c.customerUses >= d.limits.perCustomer.count
            ? "customer_limit_reached"
            : d.limits.budgetPoints !== undefined && givesPoints(d) && c.budgetUsed >= d.limits.budgetPoints
              ? "budget_exhausted"
              : null;
    if (reason) skipped.push({ campaignId: c.campaignId, reason });
    else {
      chosen.push(c);
      if (d.stacking === "exclusive") exclusive = true;
    }
  }

  // Awards first: the multipliers multiply their sum.
  const awards: number[][] = [];
  let awarded = 0;
  for (const c of chosen) {
    const points: number[] = [];
    for (const e of c.definition.effects) {
      const p = e.type === "award_points" ? awardPoints(e, event.attributes, customer.tierFactor) : 0;
      points.push(p);
      awarded += p;
    }
    awards.push(points);
  }
  const applied: AppliedCampaign[] = [];
  for (let i = 0; i < chosen.length; i++) {
    const c = chosen[i]!;
    const d = c.definition;
    let room = d.limits.budgetPoints !== undefined ? d.limits.budgetPoints - c.budgetUsed : Infinity;
    let total = 0;
    const effects: AppliedEffect[] = [];
    for (let j = 0; j < d.effects.length; j++) {
      const e = d.effects[j]!;
      if (e.type === "assign_coupon") {
        effects.push({ type: e.type, couponPoolId: e.couponPoolId });
        continue;
      }
      const full = e.type === "award_points" ? awards[i]![j]! : Math.floor(awarded * (e.factor - 1) + 1e-9);
      const points = Math.max(0, Math.min(full, room));
      room -= points;
      total += points;
      effects.push({ type: e.type, points });
    }
    // The points caps, in order: each cuts what is left to its room in its window (none below 0).
    let capped: LimitWindow | null = null;
    const caps = d.limits.pointsCaps;
    if (caps)
      for (let k = 0; k < caps.length; k++) {
        const room = caps[k]!.points - (c.customerPoints?.[k] ?? 0);
        if (room < total) {
          total = Math.max(0, room);
          capped = caps[k]!.window;
        }
      }
    if (capped !== null) {
      let left = total;
      for (const e of effects)
        if (e.type !== "assign_coupon") {
          e.points = Math.min(e.points, left);
          left -= e.points;
        }
    }
    applied.push({
      campaignId: c.campaignId,
      version: c.version,
      points: total,
      window: limitWindow(d, nowLocal),
      ...(caps ? { capped } : {}),
      effects,
    });
  }
  return { applied, skipped };
}
