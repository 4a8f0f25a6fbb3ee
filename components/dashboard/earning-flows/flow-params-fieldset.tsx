"use client";

import { useRef, useState } from "react";
import { MAX_FLOW_PARAMS, type FlowParam } from "@/lib/domain/flow-params";
import type { FormValues } from "@/lib/staff/form-data";
import { FieldError, InputField, checkboxClass, secondaryButtonClass } from "@/components/ui";

/** The rows of declared params: one stable key per row, so removing a row keeps the values typed in the others. */
export function useParamRows(initialCount = 0) {
  const [rows, setRows] = useState<number[]>(() => Array.from({ length: initialCount }, (_, i) => i));
  const nextRow = useRef(initialCount);
  return {
    rows,
    add: () => setRows((current) => [...current, nextRow.current++]),
    remove: (row: number) => setRows((current) => current.filter((r) => r !== row)),
    clear: () => setRows([]),
  };
}
type ParamRows = ReturnType<typeof useParamRows>;

/** The declared params as the schema takes them, in the order of the rows. */
export const readFlowParams = (f: FormValues, rows: number[]) =>
  rows.map((row) => ({
    name: f.text(`param-${row}-name`).trim(),
    min: f.optionalNumber(`param-${row}-min`),
    max: f.optionalNumber(`param-${row}-max`),
    required: f.checked(`param-${row}-required`),
  }));

/**
 * A flow's fields as the new-flow and edit forms read them: fixed points or points per unit of a param (the other
 * pair null), the declared params, the caps and `once`.
 */
export const readFlowFields = (f: FormValues, mode: "fixed" | "perUnit", rows: number[]) => {
  const fixed = mode === "fixed";
  return {
    name: f.optionalText("name"),
    points: fixed ? f.optionalNumber("points") : null,
    pointsPerUnit: fixed ? null : f.optionalNumber("pointsPerUnit"),
    param: fixed ? null : f.optionalText("param"),
    params: readFlowParams(f, rows),
    capPerDay: f.optionalNumber("capPerDay"),
    capTotal: f.optionalNumber("capTotal"),
    once: f.checked("once"),
  };
};

/** The "Parameters a run may send" part of the new earning flow form. */
export function FlowParamsFieldset({
  rows,
  errors,
  initial = [],
}: {
  rows: ParamRows;
  errors: Record<string, string>;
  /** The declared params an edit starts from: row n shows initial[n]. */
  initial?: FlowParam[];
}) {
  return (
    <fieldset className="space-y-3 sm:col-span-2 lg:col-span-4">
      <legend className="block text-sm font-medium text-slate-800">Parameters a run may send</legend>
      <p className="text-xs text-slate-600">
        Numbers only. A run that sends anything else is refused, and only these values are kept with its points. Empty
        bounds mean 0 to 1,000,000,000; a per-unit param not listed here is added as required.
      </p>
      <FieldError error={errors.params} />
      {rows.rows.map((row, i) => {
        const id = (part: string) => `flow-param-${row}-${part}`;
        const name = (part: string) => `param-${row}-${part}`;
        const error = (part: string) => errors[`params[${i}].${part}`];
        const bound = { type: "number", inputMode: "decimal", min: 0, step: "any" } as const;
        const start = initial[row];
        return (
          <div
            key={row}
            role="group"
            aria-label={`Parameter ${i + 1}`}
            className="grid items-end gap-3 sm:grid-cols-2 lg:grid-cols-5"
          >
            <InputField
              label={`Parameter ${i + 1} name`}
              error={error("name")}
              id={id("name")}
              name={name("name")}
              className="font-mono"
              placeholder="amount"
              autoCapitalize="none"
              spellCheck={false}
              defaultValue={start?.name}
            />
            <InputField
              label="Minimum"
              error={error("min")}
              {...bound}
              id={id("min")}
              name={name("min")}
              placeholder="0"
              defaultValue={start?.min}
            />
            <InputField
              label="Maximum"
              error={error("max")}
              {...bound}
              id={id("max")}
              name={name("max")}
              placeholder="1000000000"
              defaultValue={start?.max}
            />
            <div className="space-y-1">
              <div className="flex items-center gap-2 text-sm">
                <input
                  id={id("required")}
                  name={name("required")}
                  type="checkbox"
                  defaultChecked={start?.required ?? true}
                  className={checkboxClass}
                />
                <label htmlFor={id("required")} className="font-medium text-slate-800">
                  Required
                </label>
              </div>
              <FieldError error={error("required")} />
            </div>
            <button type="button" className={secondaryButtonClass} onClick={() => rows.remove(row)}>
              Remove parameter {i + 1}
            </button>
          </div>
        );
      })}
      <button
        type="button"
        className={secondaryButtonClass}
        disabled={rows.rows.length >= MAX_FLOW_PARAMS}
        onClick={rows.add}
      >
        Add parameter
      </button>
    </fieldset>
  );
}
