"use client";

import { useState } from "react";
import { ATTRIBUTE_TYPES, type AttributeType, type EventAttributes } from "@/lib/domain/campaigns/definition";
import { useStaffWrite } from "@/lib/staff/client";
import { EventTypeForm } from "@/lib/staff/forms/campaigns";
import { staffApi } from "@/lib/staff/urls";
import type { EventTypeView } from "@/lib/staff/queries/campaigns";
import {
  Card,
  FieldError,
  FormError,
  InputField,
  Table,
  buttonClass,
  checkboxClass,
  inputClass,
  secondaryButtonClass,
} from "@/components/ui";

interface AttrRow {
  key: number;
  name: string;
  type: AttributeType;
  required: boolean;
  /** For items: "sku:string, price:number". */
  fields: string;
}

let nextKey = 1;
const emptyRow = (): AttrRow => ({ key: nextKey++, name: "", type: "number", required: false, fields: "" });

/** A declaration in words: "total number (required), channel string, items [sku string, price number]". */
export function describeAttributes(attributes: EventAttributes): string {
  const parts = Object.entries(attributes).map(([name, d]) =>
    d.type === "items"
      ? `${name} items [${Object.entries(d.fields)
          .map(([f, fd]) => `${f} ${fd.type}`)
          .join(", ")}]${d.required ? " (required)" : ""}`
      : `${name} ${d.type}${d.required ? " (required)" : ""}`,
  );
  return parts.length ? parts.join(", ") : "no attributes";
}

const rowsOf = (attributes: EventAttributes): AttrRow[] =>
  Object.entries(attributes).map(([name, d]) => ({
    key: nextKey++,
    name,
    type: d.type,
    required: !!d.required,
    fields:
      d.type === "items"
        ? Object.entries(d.fields)
            .map(([f, fd]) => `${f}:${fd.type}`)
            .join(", ")
        : "",
  }));

function attributesOf(rows: AttrRow[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of rows) {
    const name = r.name.trim();
    const required = r.required ? { required: true } : {};
    if (r.type !== "items") {
      out[name] = { type: r.type, ...required };
      continue;
    }
    const fields: Record<string, unknown> = {};
    for (const part of r.fields.split(",")) {
      const [f, t] = part.split(":").map((s) => s.trim());
      if (f) fields[f] = { type: t || "string" };
    }
    out[name] = { type: "items", ...required, fields };
  }
  return out;
}

/**
 * The event types card (managers edit; everyone reads): the program's declared event types and their attributes, and
 * a form that declares a new one or redeclares one (activated campaign versions keep what they were checked with).
 */
export function EventTypesCard({
  programId,
  eventTypes,
  canManage,
}: {
  programId: string;
  eventTypes: EventTypeView[];
  canManage: boolean;
}) {
  const [type, setType] = useState("");
  const [rows, setRows] = useState<AttrRow[]>(() => [emptyRow()]);
  const [editing, setEditing] = useState(false);
  const write = useStaffWrite<typeof EventTypeForm, { created: boolean }>({
    schema: EventTypeForm,
    method: "PUT",
    url: staffApi.eventTypes(programId),
    success: (d) => (d.created ? `Event type "${type}" declared` : `Event type "${type}" saved`),
    onSuccess: () => {
      setType("");
      setRows([emptyRow()]);
      setEditing(false);
    },
  });
  const errors = write.errors;
  const set = (i: number, patch: Partial<AttrRow>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const edit = (t: EventTypeView) => {
    setType(t.type);
    setRows(rowsOf(t.attributes).concat(Object.keys(t.attributes).length ? [] : [emptyRow()]));
    setEditing(true);
  };
  return (
    <Card title="Event types">
      <Table
        label="Event types"
        columns={[
          { label: "Type" },
          { label: "Attributes" },
          ...(canManage ? [{ label: "Actions", hidden: true }] : []),
        ]}
        rows={eventTypes}
        empty={<>No event types yet: a campaign is triggered by a declared event type.</>}
      >
        {(t) => (
          <tr key={t.type} data-testid={`event-type-${t.type}`}>
            <td className="whitespace-nowrap px-4 py-2 font-mono font-medium">{t.type}</td>
            <td className="px-4 py-2 font-mono text-xs">{describeAttributes(t.attributes)}</td>
            {canManage && (
              <td className="px-4 py-2 text-right">
                <button type="button" className={secondaryButtonClass} onClick={() => edit(t)}>
                  Edit<span className="sr-only"> {t.type}</span>
                </button>
              </td>
            )}
          </tr>
        )}
      </Table>
      {canManage && (
        <form
          aria-label={editing ? `Edit event type ${type}` : "Declare an event type"}
          noValidate
          className="mt-4 space-y-3 border-t border-slate-100 pt-4"
          onSubmit={(e) => {
            e.preventDefault();
            write.submit({ type: type.trim(), attributes: attributesOf(rows) as EventAttributes });
          }}
        >
          <h3 className="text-sm font-semibold text-slate-800">
            {editing ? `Edit event type "${type}"` : "Declare an event type"}
          </h3>
          <InputField
            label="Type"
            hint="What integrators send as the event's type, e.g. purchase"
            id="event-type-name"
            value={type}
            readOnly={editing}
            className="font-mono"
            error={errors.type}
            onChange={(e) => setType(e.target.value)}
            autoCapitalize="none"
            spellCheck={false}
          />
          <FieldError error={errors.attributes} />
          <ol className="space-y-2">
            {rows.map((r, i) => {
              const n = i + 1;
              const err = errors[`attributes.${r.name.trim()}`] ?? errors[`attributes.${r.name.trim()}.fields`];
              return (
                <li
                  key={r.key}
                  className="grid gap-2 sm:grid-cols-[minmax(0,1fr)_10rem_auto_minmax(0,1fr)_auto] sm:items-center"
                >
                  <input
                    className={`${inputClass} font-mono`}
                    aria-label={`Name of attribute ${n}`}
                    placeholder="total"
                    value={r.name}
                    onChange={(e) => set(i, { name: e.target.value })}
                  />
                  <select
                    className={inputClass}
                    aria-label={`Type of attribute ${n}`}
                    value={r.type}
                    onChange={(e) => set(i, { type: e.target.value as AttributeType })}
                  >
                    {ATTRIBUTE_TYPES.map((t) => (
                      <option key={t} value={t}>
                        {t}
                      </option>
                    ))}
                  </select>
                  <label className="flex items-center gap-1 text-sm">
                    <input
                      type="checkbox"
                      className={checkboxClass}
                      checked={r.required}
                      onChange={(e) => set(i, { required: e.target.checked })}
                    />
                    required<span className="sr-only"> attribute {n}</span>
                  </label>
                  {r.type === "items" ? (
                    <input
                      className={`${inputClass} font-mono`}
                      aria-label={`Fields of attribute ${n}`}
                      placeholder="sku:string, price:number"
                      value={r.fields}
                      onChange={(e) => set(i, { fields: e.target.value })}
                    />
                  ) : (
                    <span />
                  )}
                  <button
                    type="button"
                    className={secondaryButtonClass}
                    onClick={() => setRows(rows.filter((_, j) => j !== i))}
                  >
                    Remove<span className="sr-only"> attribute {n}</span>
                  </button>
                  {err && <FieldError error={`${r.name}: ${err}`} className="sm:col-span-5" />}
                </li>
              );
            })}
          </ol>
          <div className="flex flex-wrap gap-2">
            <button type="button" className={secondaryButtonClass} onClick={() => setRows([...rows, emptyRow()])}>
              Add attribute
            </button>
            <button type="submit" className={buttonClass} disabled={write.pending}>
              {editing ? "Save event type" : "Declare event type"}
            </button>
            {editing && (
              <button
                type="button"
                className={secondaryButtonClass}
                onClick={() => {
                  setEditing(false);
                  setType("");
                  setRows([emptyRow()]);
                }}
              >
                Cancel
              </button>
            )}
          </div>
          <FormError error={errors.form} />
        </form>
      )}
    </Card>
  );
}
