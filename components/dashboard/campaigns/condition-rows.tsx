"use client";

import { SEGMENT_ATTR, type ConditionOp } from "@/lib/domain/campaigns/definition";
import { FieldError, checkboxClass, inputClass, secondaryButtonClass } from "@/components/ui";
import {
  OP_LABELS,
  opsOf,
  childPath,
  emptyGroup,
  emptyLeaf,
  rootPath,
  type AttributeChoice,
  type ChoiceGroup,
  type ConditionRow,
  type GroupRow,
  type LeafRow,
} from "./builder-model";

interface Shared {
  choices: AttributeChoice[];
  tierNames: string[];
  /** The program's segments, for `customer.segment` (picked by name, sent by id). */
  segments?: readonly { id: string; name: string }[];
  /** What an empty group means (campaigns: always true). */
  emptyText: string;
  errors: Record<string, string>;
  idPrefix: string;
}

const GROUPS: ChoiceGroup[] = ["Event", "Customer", "Event history"];

/**
 * The condition builder of campaigns and segments: a group of rows (all / any of them, optionally negated), each
 * row an attribute, an operator and a value (and, for a segment's event history, a window), or a nested group.
 * Each row shows the server's problems at its JSON path under `base` (`conditions`, `filter`).
 */
export function ConditionRows({
  root,
  onChange,
  base = "conditions",
  legend = "Conditions",
  hint = "No condition: every event of the trigger.",
  emptyText = "No conditions: always true.",
  ...shared
}: Omit<Shared, "emptyText"> & {
  emptyText?: string;
  root: GroupRow;
  onChange: (root: GroupRow) => void;
  base?: string;
  legend?: string;
  hint?: string;
}) {
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-slate-800">{legend}</legend>
      <p className="text-xs text-slate-600">{hint} A list value (is one of) is comma-separated.</p>
      <Group group={root} path={rootPath(root, base)} label="" onChange={onChange} emptyText={emptyText} {...shared} />
      <datalist id={`${shared.idPrefix}-tiers`}>
        {shared.tierNames.map((t) => (
          <option key={t} value={t} />
        ))}
      </datalist>
    </fieldset>
  );
}

function Group({
  group,
  path,
  label,
  onChange,
  onRemove,
  ...shared
}: Shared & {
  group: GroupRow;
  path: string;
  /** "" for the root; "2" or "2.1" for nested groups. */
  label: string;
  onChange: (group: GroupRow) => void;
  onRemove?: () => void;
}) {
  const { errors, idPrefix } = shared;
  const name = label ? `group ${label}` : "the conditions";
  const setChild = (i: number, child: ConditionRow) =>
    onChange({ ...group, children: group.children.map((c, j) => (j === i ? child : c)) });
  const removeChild = (i: number) => onChange({ ...group, children: group.children.filter((_, j) => j !== i) });
  const firstChoice = shared.choices[0];
  const id = `${idPrefix}-group-${label || "root"}`;
  return (
    <div
      className={label ? "space-y-2 rounded-md border border-slate-200 bg-slate-50 p-3" : "space-y-2"}
      data-testid={`condition-group-${label || "root"}`}
    >
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <label className="flex items-center gap-1">
          <input
            type="checkbox"
            className={checkboxClass}
            checked={group.not}
            onChange={(e) => onChange({ ...group, not: e.target.checked })}
            aria-label={`Negate ${name}`}
          />
          not
        </label>
        <label htmlFor={id} className="text-slate-700">
          Match
        </label>
        <select
          id={id}
          className={inputClass.replace("w-full", "w-auto")}
          value={group.mode}
          aria-label={`Match mode of ${name}`}
          onChange={(e) => onChange({ ...group, mode: e.target.value as "all" | "any" })}
        >
          <option value="all">all of</option>
          <option value="any">any of</option>
        </select>
        <span className="text-slate-700">these:</span>
        {onRemove && (
          <button type="button" className={`${secondaryButtonClass} ml-auto`} onClick={onRemove}>
            Remove {name}
          </button>
        )}
      </div>
      <FieldError error={errors[path] ?? errors[`${path}.${group.mode}`]} />
      {group.children.length === 0 && <p className="text-sm text-slate-600">{shared.emptyText}</p>}
      <ol className="space-y-2">
        {group.children.map((child, i) => {
          const childLabel = label ? `${label}.${i + 1}` : String(i + 1);
          const p = childPath(group, path, i, child);
          return (
            <li key={child.key}>
              {child.kind === "leaf" ? (
                <Leaf
                  leaf={child}
                  path={p}
                  label={childLabel}
                  onChange={(c) => setChild(i, c)}
                  onRemove={() => removeChild(i)}
                  {...shared}
                />
              ) : (
                <Group
                  group={child}
                  path={p}
                  label={childLabel}
                  onChange={(c) => setChild(i, c)}
                  onRemove={() => removeChild(i)}
                  {...shared}
                />
              )}
            </li>
          );
        })}
      </ol>
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          className={secondaryButtonClass}
          onClick={() =>
            onChange({
              ...group,
              children: [...group.children, emptyLeaf(firstChoice?.attr ?? "", "eq")],
            })
          }
        >
          Add condition{label ? ` to group ${label}` : ""}
        </button>
        <button
          type="button"
          className={secondaryButtonClass}
          onClick={() =>
            onChange({
              ...group,
              children: [
                ...group.children,
                emptyGroup(group.mode === "all" ? "any" : "all", [emptyLeaf(firstChoice?.attr ?? "", "eq")]),
              ],
            })
          }
        >
          Add group{label ? ` to group ${label}` : ""}
        </button>
      </div>
    </div>
  );
}

function Leaf({
  leaf,
  path,
  label,
  onChange,
  onRemove,
  choices,
  segments,
  errors,
  idPrefix,
}: Shared & {
  leaf: LeafRow;
  path: string;
  label: string;
  onChange: (leaf: LeafRow) => void;
  onRemove: () => void;
}) {
  const choice = choices.find((c) => c.attr === leaf.attr);
  const ops = opsOf(choice);
  const id = `${idPrefix}-cond-${label}`;
  const setAttr = (attr: string) => {
    const next = choices.find((c) => c.attr === attr);
    const allowed = opsOf(next);
    const value = next?.attr === SEGMENT_ATTR || choice?.attr === SEGMENT_ATTR ? "" : leaf.value;
    onChange({
      ...leaf,
      attr,
      op: allowed.includes(leaf.op) ? leaf.op : allowed[0]!,
      value,
      window: next?.window ? leaf.window : "",
    });
  };
  const valueError = errors[`${path}.value`];
  const windowError = errors[`${path}.window`];
  // customer.segment: the program's segments by name; the list holds ids (or names, as the API also accepts).
  const picked = leaf.value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "")
    .map((v) => segments?.find((s) => s.name === v)?.id ?? v);
  return (
    <div className="space-y-1" data-testid={`condition-${label}`}>
      <div className="grid gap-2 sm:grid-cols-[auto_minmax(0,2fr)_minmax(0,1fr)_minmax(0,2fr)_auto] sm:items-start">
        <label className="flex items-center gap-1 pt-2 text-sm">
          <input
            type="checkbox"
            className={checkboxClass}
            checked={leaf.not}
            onChange={(e) => onChange({ ...leaf, not: e.target.checked })}
            aria-label={`Negate condition ${label}`}
          />
          not
        </label>
        <div>
          <select
            id={`${id}-attr`}
            className={inputClass}
            value={leaf.attr}
            aria-label={`Attribute of condition ${label}`}
            aria-invalid={!!errors[`${path}.attr`]}
            onChange={(e) => setAttr(e.target.value)}
          >
            {!choice && <option value={leaf.attr}>{leaf.attr || "Choose an attribute"}</option>}
            {GROUPS.map((group) => {
              const inGroup = choices.filter((c) => c.group === group);
              return (
                inGroup.length > 0 && (
                  <optgroup key={group} label={group}>
                    {inGroup.map((c) => (
                      <option key={c.attr} value={c.attr}>
                        {group === "Event" ? `${c.attr.slice("event.".length)} (${c.type})` : c.attr}
                      </option>
                    ))}
                  </optgroup>
                )
              );
            })}
          </select>
          <FieldError error={errors[`${path}.attr`] ?? errors[path]} />
          {choice?.window && (
            <div className="mt-1 flex items-center gap-2 text-sm">
              <label htmlFor={`${id}-window`} className="whitespace-nowrap text-slate-700">
                within
              </label>
              <input
                id={`${id}-window`}
                className={inputClass}
                value={leaf.window}
                aria-label={`Window of condition ${label}`}
                aria-invalid={!!windowError}
                placeholder="P90D (empty: all time)"
                onChange={(e) => onChange({ ...leaf, window: e.target.value })}
              />
            </div>
          )}
          <FieldError error={windowError} />
        </div>
        <div>
          <select
            id={`${id}-op`}
            className={inputClass}
            value={leaf.op}
            aria-label={`Operator of condition ${label}`}
            aria-invalid={!!errors[`${path}.op`]}
            onChange={(e) => onChange({ ...leaf, op: e.target.value as ConditionOp })}
          >
            {ops.map((op) => (
              <option key={op} value={op}>
                {OP_LABELS[op]}
              </option>
            ))}
          </select>
          <FieldError error={errors[`${path}.op`]} />
        </div>
        <div>
          {segments && leaf.attr === SEGMENT_ATTR ? (
            <select
              id={`${id}-value`}
              multiple
              className={`${inputClass} h-24`}
              value={picked}
              aria-label={`Value of condition ${label}`}
              aria-invalid={!!valueError}
              onChange={(e) =>
                onChange({ ...leaf, value: Array.from(e.target.selectedOptions, (o) => o.value).join(",") })
              }
            >
              {segments.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
              {picked
                .filter((v) => !segments.some((s) => s.id === v))
                .map((v) => (
                  <option key={v} value={v}>
                    {v} (unknown)
                  </option>
                ))}
            </select>
          ) : leaf.op === "exists" || (choice?.type === "boolean" && leaf.op !== "in" && leaf.op !== "nin") ? (
            <select
              id={`${id}-value`}
              className={inputClass}
              value={leaf.value || "true"}
              aria-label={`Value of condition ${label}`}
              onChange={(e) => onChange({ ...leaf, value: e.target.value })}
            >
              <option value="true">{leaf.op === "exists" ? "yes (present)" : "true"}</option>
              <option value="false">{leaf.op === "exists" ? "no (absent)" : "false"}</option>
            </select>
          ) : (
            <input
              id={`${id}-value`}
              className={inputClass}
              value={leaf.value}
              aria-label={`Value of condition ${label}`}
              aria-invalid={!!valueError}
              inputMode={choice?.type === "number" ? "decimal" : undefined}
              placeholder={
                choice?.type === "datetime"
                  ? "2026-12-24T00:00:00Z"
                  : leaf.op === "in" || leaf.op === "nin"
                    ? "a, b, c"
                    : undefined
              }
              list={leaf.attr === "customer.tier" ? `${idPrefix}-tiers` : undefined}
              onChange={(e) => onChange({ ...leaf, value: e.target.value })}
            />
          )}
          <FieldError error={valueError} />
        </div>
        <button type="button" className={secondaryButtonClass} onClick={onRemove}>
          Remove<span className="sr-only"> condition {label}</span>
        </button>
      </div>
    </div>
  );
}
