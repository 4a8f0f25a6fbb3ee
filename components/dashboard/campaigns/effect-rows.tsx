"use client";

import { ROUNDINGS } from "@/lib/domain/campaigns/definition";
import { FieldError, checkboxClass, inputClass, secondaryButtonClass } from "@/components/ui";
import { emptyEffect, type AttributeChoice, type EffectRow } from "./builder-model";

const KINDS: [EffectRow["kind"], string][] = [
  ["fixed", "Fixed points"],
  ["per", "Points per attribute"],
  ["multiply", "Multiply points"],
  ["coupon", "Assign a coupon"],
];

/** The builder's effects: one row each, its fields by kind, the server's problems at `effects[i].<field>`. */
export function EffectRows({
  rows,
  onChange,
  numberAttrs,
  pools,
  errors,
  idPrefix,
}: {
  rows: EffectRow[];
  onChange: (rows: EffectRow[]) => void;
  /** The trigger's number attributes, for "per". */
  numberAttrs: AttributeChoice[];
  pools: { id: string; name: string }[];
  errors: Record<string, string>;
  idPrefix: string;
}) {
  const set = (i: number, patch: Partial<EffectRow>) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-slate-800">Effects</legend>
      <p className="text-xs text-slate-600">
        Awarded points are multiplied by the customer&apos;s tier factor unless you untick it. Multiply gives the points
        the event&apos;s other awards give, times the factor less one, as this campaign&apos;s points.
      </p>
      <FieldError error={errors.effects} />
      <ol className="space-y-2">
        {rows.map((row, i) => {
          const n = i + 1;
          const p = `effects[${i}]`;
          const id = `${idPrefix}-effect-${row.key}`;
          const err = (f: string) => errors[`${p}.${f}`];
          const numberField = (field: "points" | "rate" | "max" | "factor", label: string, hint?: string) => (
            <div>
              <input
                id={`${id}-${field}`}
                className={inputClass}
                type="number"
                inputMode="decimal"
                step="any"
                value={row[field]}
                placeholder={hint}
                aria-label={`${label} of effect ${n}`}
                aria-invalid={!!err(field)}
                onChange={(e) => set(i, { [field]: e.target.value })}
              />
              <FieldError error={err(field)} />
            </div>
          );
          return (
            <li
              key={row.key}
              className="grid gap-2 rounded-md border border-slate-200 p-3 sm:grid-cols-[minmax(0,14rem)_minmax(0,1fr)_auto] sm:items-start"
              data-testid={`effect-${n}`}
            >
              <select
                id={`${id}-kind`}
                className={inputClass}
                value={row.kind}
                aria-label={`Kind of effect ${n}`}
                onChange={(e) => set(i, { kind: e.target.value as EffectRow["kind"] })}
              >
                {KINDS.map(([k, label]) => (
                  <option key={k} value={k}>
                    {label}
                  </option>
                ))}
              </select>
              <div className="grid gap-2 sm:grid-cols-2 lg:grid-cols-4">
                {row.kind === "fixed" && numberField("points", "Points", "points")}
                {row.kind === "per" && (
                  <>
                    <div>
                      <select
                        id={`${id}-per`}
                        className={inputClass}
                        value={row.per}
                        aria-label={`Attribute of effect ${n}`}
                        aria-invalid={!!err("per")}
                        onChange={(e) => set(i, { per: e.target.value })}
                      >
                        <option value="">per attribute…</option>
                        {numberAttrs.map((a) => (
                          <option key={a.attr} value={a.attr}>
                            per {a.attr}
                          </option>
                        ))}
                      </select>
                      <FieldError error={err("per")} />
                    </div>
                    {numberField("rate", "Rate", "rate, e.g. 1")}
                    <div>
                      <select
                        id={`${id}-round`}
                        className={inputClass}
                        value={row.round}
                        aria-label={`Rounding of effect ${n}`}
                        onChange={(e) => set(i, { round: e.target.value as EffectRow["round"] })}
                      >
                        {ROUNDINGS.map((r) => (
                          <option key={r} value={r}>
                            round {r}
                          </option>
                        ))}
                      </select>
                      <FieldError error={err("round")} />
                    </div>
                    {numberField("max", "Maximum", "max (optional)")}
                  </>
                )}
                {row.kind === "multiply" && numberField("factor", "Factor", "factor, e.g. 2")}
                {row.kind === "coupon" && (
                  <div className="sm:col-span-2">
                    <select
                      id={`${id}-pool`}
                      className={inputClass}
                      value={row.couponPoolId}
                      aria-label={`Coupon pool of effect ${n}`}
                      aria-invalid={!!err("couponPoolId")}
                      onChange={(e) => set(i, { couponPoolId: e.target.value })}
                    >
                      <option value="">Choose a coupon pool</option>
                      {pools.map((pool) => (
                        <option key={pool.id} value={pool.id}>
                          {pool.name}
                        </option>
                      ))}
                    </select>
                    <FieldError error={err("couponPoolId")} />
                  </div>
                )}
                {(row.kind === "fixed" || row.kind === "per") && (
                  <label className="flex items-center gap-2 self-center text-sm">
                    <input
                      type="checkbox"
                      className={checkboxClass}
                      checked={row.tierFactor}
                      onChange={(e) => set(i, { tierFactor: e.target.checked })}
                    />
                    Tier factor applies<span className="sr-only"> to effect {n}</span>
                  </label>
                )}
                <FieldError error={errors[p]} />
              </div>
              <button
                type="button"
                className={secondaryButtonClass}
                disabled={rows.length === 1}
                onClick={() => onChange(rows.filter((_, j) => j !== i))}
              >
                Remove<span className="sr-only"> effect {n}</span>
              </button>
            </li>
          );
        })}
      </ol>
      <button type="button" className={secondaryButtonClass} onClick={() => onChange([...rows, emptyEffect()])}>
        Add effect
      </button>
    </fieldset>
  );
}
