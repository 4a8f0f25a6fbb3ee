"use client";

import { useState } from "react";
import type { FormValues } from "@/lib/staff/form-data";
import { MAX_PENDING_DAYS, type PendingOverride } from "@/lib/domain/pending-rules";
import { Field, FieldError, inputLook } from "@/components/ui";

/**
 * A campaign's or an earning flow's override of the program's pending setting (lib/domain/pending-rules.ts): the
 * program's setting, a number of days (0: spendable at once), or until the order is confirmed. Used by the campaign
 * builder and the earning flows' forms; `readPendingOverride` reads it back into the schemas' fields.
 */
type Mode = "program" | "days" | "until_confirmed";

/** The field's state: the choice and the days typed. */
export interface PendingChoice {
  mode: Mode;
  days: string;
}

export const pendingChoiceOf = (o: PendingOverride | null | undefined): PendingChoice => ({
  mode: o?.pending === "until_confirmed" ? "until_confirmed" : o?.pendingDays != null ? "days" : "program",
  days: String(o?.pendingDays ?? 0),
});

/** The choice as a campaign body's fields: absent when not chosen (the /v1 body leaves them out). */
export const overrideOfChoice = (c: PendingChoice): PendingOverride =>
  c.mode === "days"
    ? { pendingDays: c.days.trim() === "" ? Number.NaN : Number(c.days) }
    : c.mode === "until_confirmed"
      ? { pending: "until_confirmed" }
      : {};

/**
 * Uncontrolled (its fields are read from the form: `readPendingOverride`), or controlled by the caller's state
 * (`choice`, `onChange`: the campaign builder, whose JSON view may replace it).
 */
export function PendingOverrideField({
  id,
  value,
  choice,
  onChange,
  error,
}: {
  /** The prefix of the fields' ids (one form may hold one such field). */
  id: string;
  value?: PendingOverride | null;
  choice?: PendingChoice;
  onChange?: (choice: PendingChoice) => void;
  error?: string;
}) {
  const [own, setOwn] = useState<PendingChoice>(() => pendingChoiceOf(value));
  const current = choice ?? own;
  const change = (patch: Partial<PendingChoice>) => {
    const next = { ...current, ...patch };
    if (onChange) onChange(next);
    else setOwn(next);
  };
  const mode = current.mode;
  return (
    <Field
      label="New points are"
      htmlFor={`${id}-pending-mode`}
      hint="Pending points are not spendable until they mature; a refund before then cancels them."
    >
      <div className="flex flex-wrap items-center gap-2">
        <select
          id={`${id}-pending-mode`}
          name="pendingMode"
          value={mode}
          onChange={(e) => change({ mode: e.target.value as Mode })}
          className={`${inputLook} w-auto py-2`}
        >
          <option value="program">as the program&apos;s setting</option>
          <option value="days">pending for a number of days</option>
          <option value="until_confirmed">pending until the order is confirmed</option>
        </select>
        {mode === "days" && (
          <>
            <label htmlFor={`${id}-pending-days`} className="sr-only">
              Pending days
            </label>
            <input
              id={`${id}-pending-days`}
              name="pendingDays"
              type="number"
              inputMode="numeric"
              min={0}
              max={MAX_PENDING_DAYS}
              step={1}
              value={current.days}
              onChange={(e) => change({ days: e.target.value })}
              className={`${inputLook} w-24 py-2`}
              aria-describedby={`${id}-pending-days-unit`}
            />
            <span id={`${id}-pending-days-unit`} className="text-sm text-slate-700">
              days (0: spendable at once)
            </span>
          </>
        )}
      </div>
      <FieldError error={error} />
    </Field>
  );
}

/** The override as the schemas take it: `pendingDays` or `pending`, each null when not chosen. */
export function readPendingOverride(f: FormValues): { pendingDays: number | null; pending: "until_confirmed" | null } {
  const mode = f.text("pendingMode") as Mode;
  return {
    pendingDays: mode === "days" ? f.number("pendingDays") : null,
    pending: mode === "until_confirmed" ? "until_confirmed" : null,
  };
}
