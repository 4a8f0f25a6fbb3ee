"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import {
  LIFECYCLE_ATTRIBUTES,
  LIFECYCLE_KINDS,
  LIMIT_WINDOWS,
  STACKINGS,
  type CampaignBody,
  type CampaignTrigger,
  type Condition,
  type LifecycleKind,
} from "@/lib/domain/campaigns/definition";
import { useStaffWrite } from "@/lib/staff/client";
import { CampaignForm } from "@/lib/staff/forms/campaigns";
import { dashboardPages, staffApi } from "@/lib/staff/urls";
import type { CampaignBuilderOptions } from "@/lib/staff/queries/campaigns";
import { FieldError, InputField, buttonClass, checkboxClass, inputClass, secondaryButtonClass } from "@/components/ui";
import {
  attributeChoices,
  conditionsOf,
  effectOf,
  effectRowOf,
  emptyEffect,
  rowsOf,
  type EffectRow,
  type GroupRow,
} from "./builder-model";
import { ConditionRows } from "./condition-rows";
import { BuilderSubmit } from "./builder-submit";
import { EffectRows } from "./effect-rows";
import { PendingOverrideField, overrideOfChoice, pendingChoiceOf, type PendingChoice } from "../pending-override-field";

const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/** An instant as a datetime-local input's value, in the browser's time zone; and back. */
const localInput = (iso: string | undefined) => {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};
const instant = (local: string) => {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
};

/** The trigger select's value for a lifecycle moment (no event type has a `:` in its name). */
const LIFECYCLE_PREFIX = "lifecycle:";
const lifecycleOf = (trigger: string): LifecycleKind | null => {
  const kind = trigger.startsWith(LIFECYCLE_PREFIX) ? trigger.slice(LIFECYCLE_PREFIX.length) : null;
  return LIFECYCLE_KINDS.find((k) => k === kind) ?? null;
};
const LIFECYCLE_LABELS: Record<LifecycleKind, string> = {
  birthday: "the customer's birthday",
  anniversary: "the membership anniversary",
  inactivity: "inactivity: days without activity",
  signup: "signup",
  tier_reached: "a tier reached",
};

interface Fields {
  name: string;
  /** An event type, or `lifecycle:<kind>`. */
  trigger: string;
  /** inactivity: the days; tier_reached: the tier's name. */
  triggerDays: string;
  triggerTier: string;
  root: GroupRow;
  effects: EffectRow[];
  limitCount: string;
  limitWindow: (typeof LIMIT_WINDOWS)[number];
  budget: string;
  startsAt: string;
  endsAt: string;
  days: number[];
  hoursFrom: string;
  hoursTo: string;
  priority: string;
  stacking: (typeof STACKINGS)[number];
  pending: PendingChoice;
}

function fieldsOf(body: Partial<CampaignBody> | undefined, firstType: string): Fields {
  const s = body?.schedule ?? {};
  const per = body?.limits?.perCustomer;
  return {
    name: body?.name ?? "",
    trigger: !body?.trigger
      ? firstType
      : "event" in body.trigger
        ? body.trigger.event
        : `${LIFECYCLE_PREFIX}${body.trigger.lifecycle}`,
    triggerDays: body?.trigger && "days" in body.trigger ? String(body.trigger.days) : "",
    triggerTier: body?.trigger && "tier" in body.trigger ? body.trigger.tier : "",
    root: rowsOf(body?.conditions as Condition | null | undefined),
    effects: body?.effects?.length
      ? body.effects.map((e) => effectRowOf(e as unknown as Record<string, unknown>))
      : [emptyEffect()],
    limitCount: per ? String(per.count) : "",
    limitWindow: per?.window ?? "day",
    budget: body?.limits?.budgetPoints !== undefined ? String(body.limits.budgetPoints) : "",
    startsAt: localInput(s.startsAt),
    endsAt: localInput(s.endsAt),
    days: s.daysOfWeek ?? [],
    hoursFrom: s.hours?.from ?? "",
    hoursTo: s.hours?.to ?? "",
    priority: String(body?.priority ?? 0),
    stacking: body?.stacking ?? "stack",
    pending: pendingChoiceOf(body),
  };
}

const number = (text: string) => (text.trim() === "" ? undefined : Number(text));

/**
 * The campaign builder (managers): conditions and effects as rows of fields, limits, budget, schedule, priority and
 * stacking, with a JSON view of the same body (editable: "Use this JSON" loads it into the fields). The body is
 * the /v1 campaign body, checked in the browser by its schema and on the server against the trigger's event type;
 * the server's problems show at their fields. Creates a draft (then opens its page), or replaces a campaign's
 * draft (its next version).
 */
export function CampaignBuilder({
  programId,
  options,
  initial,
  campaignId,
  onSaved,
}: {
  programId: string;
  options: CampaignBuilderOptions;
  initial?: CampaignBody;
  /** Editing this campaign's draft; a new campaign without it. */
  campaignId?: string;
  onSaved?: () => void;
}) {
  const router = useRouter();
  const idPrefix = campaignId ? "edit-campaign" : "campaign";
  const [f, setF] = useState<Fields>(() =>
    fieldsOf(initial, options.eventTypes[0]?.type ?? `${LIFECYCLE_PREFIX}birthday`),
  );
  const [view, setView] = useState<"fields" | "json">("fields");
  const [json, setJson] = useState("");
  const [jsonError, setJsonError] = useState<string | undefined>();
  const set = (patch: Partial<Fields>) => setF((current) => ({ ...current, ...patch }));
  const lifecycle = lifecycleOf(f.trigger);
  const declared = lifecycle
    ? LIFECYCLE_ATTRIBUTES[lifecycle]
    : options.eventTypes.find((t) => t.type === f.trigger)?.attributes;
  const choices = attributeChoices(declared, options.customerAttributes, options.segments.length > 0);
  const write = useStaffWrite<typeof CampaignForm, { id: string }>({
    schema: CampaignForm,
    method: campaignId ? "PUT" : "POST",
    url: campaignId ? staffApi.campaign(programId, campaignId) : staffApi.campaigns(programId),
    success: campaignId ? "Draft saved: activate it to run it as the next version" : "Campaign created as a draft",
    onSuccess: (data) => {
      if (onSaved) onSaved();
      else router.push(dashboardPages.campaign(programId, data.id));
    },
  });
  const errors = write.errors;

  const body = (): Record<string, unknown> => {
    const count = number(f.limitCount);
    const budget = number(f.budget);
    const hours = f.hoursFrom || f.hoursTo ? { hours: { from: f.hoursFrom, to: f.hoursTo } } : {};
    const trigger: CampaignTrigger | Record<string, unknown> = !lifecycle
      ? { event: f.trigger }
      : lifecycle === "inactivity"
        ? { lifecycle, days: number(f.triggerDays) }
        : lifecycle === "tier_reached"
          ? { lifecycle, tier: f.triggerTier }
          : { lifecycle };
    return {
      name: f.name,
      trigger,
      conditions: conditionsOf(f.root, choices),
      effects: f.effects.map(effectOf),
      limits: {
        ...(count === undefined ? {} : { perCustomer: { count, window: f.limitWindow } }),
        ...(budget === undefined ? {} : { budgetPoints: budget }),
      },
      schedule: {
        ...(f.startsAt ? { startsAt: instant(f.startsAt) } : {}),
        ...(f.endsAt ? { endsAt: instant(f.endsAt) } : {}),
        ...(f.days.length ? { daysOfWeek: [...f.days].sort() } : {}),
        ...hours,
      },
      priority: number(f.priority) ?? 0,
      stacking: f.stacking,
      // A lifecycle campaign's points are never pending (they belong to no order).
      ...(lifecycle ? {} : overrideOfChoice(f.pending)),
    };
  };

  const parseJson = (): Record<string, unknown> | null => {
    try {
      const parsed: unknown = JSON.parse(json);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        setJsonError("must be a JSON object");
        return null;
      }
      setJsonError(undefined);
      return parsed as Record<string, unknown>;
    } catch (e) {
      setJsonError(`is not JSON: ${(e as Error).message}`);
      return null;
    }
  };
  const showJson = () => {
    setJson(JSON.stringify(body(), null, 2));
    setJsonError(undefined);
    setView("json");
  };
  const applyJson = () => {
    const parsed = parseJson();
    if (!parsed) return;
    setF(fieldsOf(parsed as unknown as CampaignBody, f.trigger));
    setView("fields");
  };
  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    if (view === "json") {
      const parsed = parseJson();
      if (parsed) write.submit(parsed as never);
      return;
    }
    write.submit(body() as never);
  };

  const numberAttrs = choices.filter(
    (c) => c.type === "number" && c.attr.startsWith("event.") && !c.attr.includes("[]"),
  );
  // The server's problems by path (the browser's copies under each leaf name are left out).
  const problems = Object.entries(errors).filter(
    ([k]) =>
      k.includes(".") ||
      k.includes("[") ||
      k === "name" ||
      k === "priority" ||
      k === "stacking" ||
      k === "pendingDays" ||
      k === "pending",
  );
  const title = campaignId ? "Edit the draft" : "New campaign";
  return (
    <form onSubmit={onSubmit} aria-label={title} noValidate className="space-y-5">
      <div className="flex flex-wrap gap-2" role="group" aria-label="Builder view">
        <button
          type="button"
          className={view === "fields" ? buttonClass : secondaryButtonClass}
          aria-pressed={view === "fields"}
          onClick={() => (view === "json" ? applyJson() : undefined)}
        >
          Fields
        </button>
        <button
          type="button"
          className={view === "json" ? buttonClass : secondaryButtonClass}
          aria-pressed={view === "json"}
          onClick={() => (view === "fields" ? showJson() : undefined)}
        >
          JSON
        </button>
      </div>
      {view === "json" ? (
        <div className="space-y-2">
          <label htmlFor={`${idPrefix}-json`} className="block text-sm font-medium text-slate-800">
            Campaign as JSON (the /v1 campaign body)
          </label>
          <textarea
            id={`${idPrefix}-json`}
            className={`${inputClass} h-96 font-mono text-xs`}
            value={json}
            spellCheck={false}
            onChange={(e) => setJson(e.target.value)}
          />
          <FieldError error={jsonError} />
          <button type="button" className={secondaryButtonClass} onClick={applyJson}>
            Use this JSON in the fields
          </button>
        </div>
      ) : (
        <>
          <div className="grid gap-3 sm:grid-cols-2">
            <InputField
              label="Name"
              id={`${idPrefix}-name`}
              value={f.name}
              error={errors.name}
              onChange={(e) => set({ name: e.target.value })}
              placeholder="Double points on weekends for Gold"
            />
            <div className="space-y-1">
              <label htmlFor={`${idPrefix}-trigger`} className="block text-sm font-medium text-slate-800">
                Trigger
              </label>
              <select
                id={`${idPrefix}-trigger`}
                className={inputClass}
                value={f.trigger}
                onChange={(e) => set({ trigger: e.target.value })}
              >
                {!lifecycle && !options.eventTypes.some((t) => t.type === f.trigger) && (
                  <option value={f.trigger}>{f.trigger || "Declare an event type first"}</option>
                )}
                <optgroup label="An event">
                  {options.eventTypes.map((t) => (
                    <option key={t.type} value={t.type}>
                      {t.type}
                    </option>
                  ))}
                </optgroup>
                <optgroup label="A moment in the customer's life">
                  {LIFECYCLE_KINDS.map((k) => (
                    <option key={k} value={`${LIFECYCLE_PREFIX}${k}`}>
                      {LIFECYCLE_LABELS[k]}
                    </option>
                  ))}
                </optgroup>
              </select>
              <FieldError error={errors["trigger.event"] ?? errors["trigger.lifecycle"] ?? errors.trigger} />
            </div>
            {lifecycle === "inactivity" && (
              <InputField
                label="Days without an event or an earn"
                id={`${idPrefix}-trigger-days`}
                type="number"
                inputMode="numeric"
                min={1}
                value={f.triggerDays}
                error={errors["trigger.days"]}
                onChange={(e) => set({ triggerDays: e.target.value })}
              />
            )}
            {lifecycle === "tier_reached" && (
              <div className="space-y-1">
                <label htmlFor={`${idPrefix}-trigger-tier`} className="block text-sm font-medium text-slate-800">
                  Tier reached
                </label>
                <select
                  id={`${idPrefix}-trigger-tier`}
                  className={inputClass}
                  value={f.triggerTier}
                  onChange={(e) => set({ triggerTier: e.target.value })}
                >
                  <option value="">Choose a tier</option>
                  {options.tierNames.map((t) => (
                    <option key={t} value={t}>
                      {t}
                    </option>
                  ))}
                </select>
                <FieldError error={errors["trigger.tier"]} />
              </div>
            )}
            {lifecycle && (
              <p className="text-xs text-slate-600 sm:col-span-2">
                Fires once per occurrence for each customer, at its moment in the program&apos;s time zone (29 February
                birthdays: on 28 February in other years). Conditions may read the moment&apos;s attributes as{" "}
                <code>event.&lt;name&gt;</code>.
              </p>
            )}
          </div>
          <ConditionRows
            root={f.root}
            onChange={(root) => set({ root })}
            choices={choices}
            tierNames={options.tierNames}
            segments={options.segments}
            errors={errors}
            idPrefix={idPrefix}
          />
          <EffectRows
            rows={f.effects}
            onChange={(effects) => set({ effects })}
            numberAttrs={numberAttrs}
            pools={options.pools}
            errors={errors}
            idPrefix={idPrefix}
          />
          <fieldset className="grid gap-3 sm:grid-cols-3">
            <legend className="mb-1 text-sm font-medium text-slate-800">Limits and budget</legend>
            <InputField
              label="Times per customer"
              hint="Empty: no limit"
              id={`${idPrefix}-limit-count`}
              type="number"
              inputMode="numeric"
              min={1}
              value={f.limitCount}
              error={errors["limits.perCustomer.count"] ?? errors["limits.perCustomer"]}
              onChange={(e) => set({ limitCount: e.target.value })}
            />
            <div className="space-y-1">
              <label htmlFor={`${idPrefix}-limit-window`} className="block text-sm font-medium text-slate-800">
                Per
              </label>
              <select
                id={`${idPrefix}-limit-window`}
                className={inputClass}
                value={f.limitWindow}
                onChange={(e) => set({ limitWindow: e.target.value as Fields["limitWindow"] })}
              >
                {LIMIT_WINDOWS.map((w) => (
                  <option key={w} value={w}>
                    {w}
                  </option>
                ))}
              </select>
              <FieldError error={errors["limits.perCustomer.window"]} />
            </div>
            <InputField
              label="Budget (points)"
              hint="In total, all versions; empty: none"
              id={`${idPrefix}-budget`}
              type="number"
              inputMode="numeric"
              min={1}
              value={f.budget}
              error={errors["limits.budgetPoints"]}
              onChange={(e) => set({ budget: e.target.value })}
            />
          </fieldset>
          <fieldset className="space-y-3">
            <legend className="mb-1 text-sm font-medium text-slate-800">Schedule</legend>
            <p className="text-xs text-slate-600">
              Days and hours are in the program&apos;s time zone (Settings); start and end in your browser&apos;s.
            </p>
            <div className="grid gap-3 sm:grid-cols-2">
              <InputField
                label="Starts"
                id={`${idPrefix}-starts`}
                type="datetime-local"
                value={f.startsAt}
                error={errors["schedule.startsAt"]}
                onChange={(e) => set({ startsAt: e.target.value })}
              />
              <InputField
                label="Ends (exclusive)"
                id={`${idPrefix}-ends`}
                type="datetime-local"
                value={f.endsAt}
                error={errors["schedule.endsAt"]}
                onChange={(e) => set({ endsAt: e.target.value })}
              />
            </div>
            <div role="group" aria-label="Days of the week" className="flex flex-wrap gap-3 text-sm">
              <span className="font-medium text-slate-800">Days:</span>
              {DAYS.map((d, i) => (
                <label key={d} className="flex items-center gap-1">
                  <input
                    type="checkbox"
                    className={checkboxClass}
                    checked={f.days.includes(i + 1)}
                    onChange={(e) =>
                      set({ days: e.target.checked ? [...f.days, i + 1] : f.days.filter((x) => x !== i + 1) })
                    }
                  />
                  {d}
                </label>
              ))}
              <span className="text-xs text-slate-600">(none ticked: every day)</span>
            </div>
            <FieldError error={errors["schedule.daysOfWeek"]} />
            <div className="grid gap-3 sm:grid-cols-2">
              <InputField
                label="From (time of day)"
                id={`${idPrefix}-hours-from`}
                type="time"
                value={f.hoursFrom}
                error={errors["schedule.hours.from"] ?? errors["schedule.hours"]}
                onChange={(e) => set({ hoursFrom: e.target.value })}
              />
              <InputField
                label="To (exclusive)"
                id={`${idPrefix}-hours-to`}
                type="time"
                value={f.hoursTo}
                error={errors["schedule.hours.to"]}
                onChange={(e) => set({ hoursTo: e.target.value })}
              />
            </div>
          </fieldset>
          <div className="grid gap-3 sm:grid-cols-2">
            <InputField
              label="Priority"
              hint="Higher runs first"
              id={`${idPrefix}-priority`}
              type="number"
              inputMode="numeric"
              value={f.priority}
              error={errors.priority}
              onChange={(e) => set({ priority: e.target.value })}
            />
            <div className="space-y-1">
              <label htmlFor={`${idPrefix}-stacking`} className="block text-sm font-medium text-slate-800">
                Stacking
              </label>
              <select
                id={`${idPrefix}-stacking`}
                className={inputClass}
                value={f.stacking}
                onChange={(e) => set({ stacking: e.target.value as Fields["stacking"] })}
              >
                <option value="stack">stack: later campaigns still apply</option>
                <option value="exclusive">exclusive: when it applies, lower ones do not</option>
              </select>
              <FieldError error={errors.stacking} />
            </div>
          </div>
          {!lifecycle && (
            <PendingOverrideField
              id={idPrefix}
              choice={f.pending}
              onChange={(pending) => set({ pending })}
              error={errors.pendingDays ?? errors.pending}
            />
          )}
        </>
      )}
      <BuilderSubmit
        errors={errors}
        problems={problems}
        pending={write.pending}
        submit={campaignId ? "Save the draft" : "Create campaign"}
      />
    </form>
  );
}
