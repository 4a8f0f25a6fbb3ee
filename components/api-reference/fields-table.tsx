import { Table } from "@/components/ui";
import { constraints, type Parameter, type Schema } from "./document";
import { InlineText } from "./inline-text";
import { TypeOf } from "./schema-type";

/** The reference's two tables, an object's fields and an operation's parameters: name, type and notes in words. */

const td = "py-1 pr-4";

function NameCell({ name, required }: { name: string; required?: boolean }) {
  return (
    <td className={`whitespace-nowrap ${td} font-mono`}>
      {name}
      {required ? <span className="ml-1 font-sans text-xs font-semibold text-red-800">required</span> : null}
    </td>
  );
}

function NotesCell({ description, schema }: { description?: string; schema: Schema | undefined }) {
  const limits = constraints(schema).join(" · ");
  return (
    <td className="py-1 text-slate-700">
      <div className="min-w-64">
        <InlineText text={description} />
        {description && limits ? " · " : ""}
        {limits || (description ? "" : "—")}
      </div>
    </td>
  );
}

const FIELD_COLUMNS = [{ label: "Field" }, { label: "Type" }, { label: "Notes" }];

export function FieldsTable({ schema, label }: { schema: Schema; label: string }) {
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return null;
  const required = new Set(schema.required ?? []);
  return (
    <Table
      label={label}
      look="plain"
      pad="py-1"
      columns={FIELD_COLUMNS}
      rows={props}
      className="mt-2 text-left"
      bodyClassName="align-top"
    >
      {([name, prop]) => (
        <tr key={name}>
          <NameCell name={name} required={required.has(name)} />
          <td className={td}>
            <TypeOf schema={prop} />
          </td>
          <NotesCell description={prop.description} schema={prop} />
        </tr>
      )}
    </Table>
  );
}

const PARAMETER_COLUMNS = [{ label: "Name" }, { label: "In" }, { label: "Type" }, { label: "Notes" }];

export function ParametersTable({ parameters, label }: { parameters: Parameter[]; label: string }) {
  return (
    <Table
      label={label}
      look="plain"
      pad="py-1"
      columns={PARAMETER_COLUMNS}
      rows={parameters}
      className="mt-1 text-left"
      bodyClassName="align-top"
    >
      {(p) => (
        <tr key={p.in + p.name}>
          <NameCell name={p.name} required={p.required} />
          <td className={td}>{p.in}</td>
          <td className={td}>
            <TypeOf schema={p.schema} />
          </td>
          <NotesCell description={p.description} schema={p.schema} />
        </tr>
      )}
    </Table>
  );
}
