"use client";

import { useState } from "react";
import type { EventAttributes, SkipReason } from "@/lib/domain/campaigns/definition";
import { useStaffWrite } from "@/lib/staff/client";
import { TryEventForm } from "@/lib/staff/forms/campaigns";
import { staffApi } from "@/lib/staff/urls";
import { Card, FieldError, FormError, InputField, buttonClass, formatNumber, inputClass } from "@/components/ui";

interface TryAnswer {
  event: { type: string; occurredAt: string };
  effects: {
    campaignId: string;
    campaignVersion: number;
    type: string;
    points: number | null;
    /** The points would go pending (null: spendable at once); maturesAt null: until the order is confirmed. */
    pending: { maturesAt: string | null } | null;
  }[];
  balance: number;
  skipped: { campaignId: string; reason: SkipReason }[];
  previewedDraft: boolean;
}

const REASONS: Record<SkipReason, string> = {
  condition_false: "its conditions are not met",
  outside_schedule: "outside its schedule (dates, days or hours)",
  customer_limit_reached: "the customer has reached its limit",
  budget_exhausted: "its budget is used up",
  exclusive_campaign_applied: "an exclusive campaign of higher priority applied",
  coupon_pool_empty: "its coupon pool has no free code",
};

const EFFECTS: Record<string, string> = {
  award_points: "award",
  multiply_points: "multiplied",
  assign_coupon: "a coupon",
};

/**
 * "Try it": a dry run of an event of the campaign's trigger for a customer (e-mail, when, attributes). Shows each
 * campaign's effects and why the others were skipped. Nothing is stored and no limit or budget is consumed; the
 * campaign's pending draft is tried in place of its running version.
 */
export function TryIt({
  programId,
  campaignId,
  trigger,
  attributes,
  names,
}: {
  programId: string;
  campaignId: string;
  trigger: string;
  attributes: EventAttributes;
  /** Campaign names by id, to name the campaigns of the answer. */
  names: Record<string, string>;
}) {
  const [answer, setAnswer] = useState<TryAnswer | null>(null);
  const write = useStaffWrite<typeof TryEventForm, TryAnswer>({
    schema: TryEventForm,
    method: "POST",
    url: staffApi.campaignTry(programId, campaignId),
    success: "Tried: nothing was stored",
    onSuccess: setAnswer,
  });
  const errors = write.errors;
  const onSubmit = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const text = (name: string) => String(data.get(name) ?? "").trim();
    const attrs: Record<string, unknown> = {};
    for (const [name, d] of Object.entries(attributes)) {
      const v = text(`attr-${name}`);
      if (v === "") continue;
      if (d.type === "number") attrs[name] = Number.isNaN(Number(v)) ? v : Number(v);
      else if (d.type === "boolean") attrs[name] = v === "true";
      else if (d.type === "items") {
        try {
          attrs[name] = JSON.parse(v);
        } catch {
          attrs[name] = v;
        }
      } else attrs[name] = v;
    }
    const when = text("occurredAt");
    setAnswer(null);
    write.submit({
      email: text("email"),
      occurredAt: when ? new Date(when).toISOString() : null,
      attributes: attrs,
    });
  };
  const name = (id: string) => names[id] ?? id;
  return (
    <Card title="Try it">
      <form onSubmit={onSubmit} aria-label="Try it" noValidate className="grid gap-3 sm:grid-cols-2">
        <p className="text-sm text-slate-700 sm:col-span-2">
          A dry run of a <span className="font-mono">{trigger}</span> event for a customer: what every active campaign
          (and this one&apos;s draft) would do. Nothing is stored, no limit or budget is used.
        </p>
        <InputField label="Customer e-mail" id="try-email" name="email" type="email" error={errors.email} />
        <InputField
          label="When (your time zone)"
          hint="Empty: now, on the program's clock"
          id="try-when"
          name="occurredAt"
          type="datetime-local"
          error={errors.occurredAt}
        />
        {Object.entries(attributes).map(([attr, d]) =>
          d.type === "boolean" ? (
            <div key={attr} className="space-y-1">
              <label htmlFor={`try-attr-${attr}`} className="block text-sm font-medium text-slate-800">
                {attr}
                {d.required ? " (required)" : ""}
              </label>
              <select id={`try-attr-${attr}`} name={`attr-${attr}`} className={inputClass} defaultValue="">
                <option value="">—</option>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
              <FieldError error={errors[`attributes.${attr}`]} />
            </div>
          ) : (
            <InputField
              key={attr}
              label={`${attr}${d.required ? " (required)" : ""}`}
              hint={d.type === "items" ? "JSON array, e.g. [{ ... }]" : d.type}
              id={`try-attr-${attr}`}
              name={`attr-${attr}`}
              type={d.type === "number" ? "number" : "text"}
              step={d.type === "number" ? "any" : undefined}
              className={d.type === "items" ? "font-mono" : undefined}
              error={errors[`attributes.${attr}`]}
            />
          ),
        )}
        <div className="sm:col-span-2">
          <FormError error={errors.form} />
          <button type="submit" className={buttonClass} disabled={write.pending}>
            Try it
          </button>
        </div>
      </form>
      {answer && (
        <div
          className="mt-4 space-y-3 border-t border-slate-100 pt-4 text-sm"
          aria-live="polite"
          data-testid="try-result"
        >
          <p>
            Event at {new Date(answer.event.occurredAt).toLocaleString("en-GB")}; balance now{" "}
            <span className="tabular-nums">{formatNumber(answer.balance)}</span>.
          </p>
          <div>
            <h3 className="font-medium text-slate-800">Effects</h3>
            {answer.effects.length === 0 ? (
              <p className="text-slate-600">No campaign applies.</p>
            ) : (
              <ul className="list-disc pl-5">
                {answer.effects.map((e, i) => (
                  <li key={i}>
                    <span className="font-medium">{name(e.campaignId)}</span> (v{e.campaignVersion}
                    {e.campaignId === campaignId && answer.previewedDraft ? ", draft" : ""}):{" "}
                    {EFFECTS[e.type] ?? e.type}
                    {e.points !== null ? ` ${formatNumber(e.points)} points` : ""}
                    {e.pending &&
                      (e.pending.maturesAt
                        ? `, pending until ${e.pending.maturesAt.slice(0, 16).replace("T", " ")} UTC`
                        : ", pending until the order is confirmed")}
                  </li>
                ))}
              </ul>
            )}
          </div>
          {answer.skipped.length > 0 && (
            <div>
              <h3 className="font-medium text-slate-800">Skipped</h3>
              <ul className="list-disc pl-5">
                {answer.skipped.map((s, i) => (
                  <li key={i}>
                    <span className="font-medium">{name(s.campaignId)}</span>: {REASONS[s.reason] ?? s.reason}{" "}
                    <span className="font-mono text-xs text-slate-600">({s.reason})</span>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      )}
    </Card>
  );
}
