"use client";

import { CONDITION_OPS, type ConditionOp } from "@/lib/domain/campaigns/definition";
import { FieldError, checkboxClass, inputClass, secondaryButtonClass } from "@/components/ui";
import {
  OPS_BY_TYPE,
  OP_LABELS,
  childPath,
  emptyGroup,
  emptyLeaf,
  rootPath,
  type AttributeChoice,
  type ConditionRow,
  type GroupRow,
  type LeafRow,
} from "./builder-model";

interface Shared {
  choices: AttributeChoice[];
  tierNames: string[];
  errors: Record<string, string>;
  idPrefix: string;
}

/**
 * The builder's conditions: a group of rows (all / any of them, optionally negated), each row an attribute, an
 * operator and a value, or a nested group. Each row shows the server's problems at its JSON path.
 */
export function ConditionRows({
  root,
  onChange,
  ...shared
}: Shared & { root: GroupRow; onChange: (root: GroupRow) => void }) {
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-slate-800">Conditions</legend>
      <p className="text-xs text-slate-600">
        No condition: every event of the trigger. A list value (is one of) is comma-separated.
      </p>
      <Group group={root} path={rootPath(root)} label="" onChange={onChange} {...shared} />
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
      {group.children.length === 0 && <p className="text-sm text-slate-600">No conditions: always true.</p>}
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
  const ops: readonly ConditionOp[] = choice ? OPS_BY_TYPE[choice.type] : CONDITION_OPS;
  const id = `${idPrefix}-cond-${label}`;
  const setAttr = (attr: string) => {
    const type = choices.find((c) => c.attr === attr)?.type;
    const allowed = type ? OPS_BY_TYPE[type] : CONDITION_OPS;
    onChange({ ...leaf, attr, op: allowed.includes(leaf.op) ? leaf.op : allowed[0]! });
  };
  const eventChoices = choices.filter((c) => c.attr.startsWith("event."));
  const customerChoices = choices.filter((c) => c.attr.startsWith("customer."));
  const valueError = errors[`${path}.value`];
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
            {eventChoices.length > 0 && (
              <optgroup label="Event">
                {eventChoices.map((c) => (
                  <option key={c.attr} value={c.attr}>
                    {c.attr.slice("event.".length)} ({c.type})
                  </option>
                ))}
              </optgroup>
            )}
            <optgroup label="Customer">
              {customerChoices.map((c) => (
                <option key={c.attr} value={c.attr}>
                  {c.attr}
                </option>
              ))}
            </optgroup>
          </select>
          <FieldError error={errors[`${path}.attr`] ?? errors[path]} />
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
          {leaf.op === "exists" || (choice?.type === "boolean" && leaf.op !== "in" && leaf.op !== "nin") ? (
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
