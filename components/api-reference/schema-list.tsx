import { anchor, constraints, type Doc } from "./document";
import { FieldsTable } from "./fields-table";
import { headings } from "./headings";
import { InlineText } from "./inline-text";
import { TypeOf } from "./schema-type";

/** The reference's last part: every named schema of the document with its fields (operations link here). */
export function SchemaList({ doc, headingLevel }: { doc: Doc; headingLevel: 1 | 2 }) {
  const [, H2, H3] = headings(headingLevel);
  return (
    <section aria-labelledby="schemas-title" className="space-y-4">
      <H2 id="schemas-title" className="text-xl font-semibold">
        Schemas
      </H2>
      {Object.entries(doc.components.schemas).map(([name, schema]) => (
        <section
          key={name}
          id={anchor(name)}
          className="scroll-mt-20 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
          aria-labelledby={`${anchor(name)}-title`}
        >
          <H3 id={`${anchor(name)}-title`} className="font-mono text-base font-semibold">
            {name}
          </H3>
          {schema.description && (
            <p className="mt-1 text-sm text-slate-700">
              <InlineText text={schema.description} />
            </p>
          )}
          {schema.properties ? (
            <FieldsTable schema={schema} label={`Fields of ${name}`} />
          ) : (
            <p className="mt-1 text-sm">
              <TypeOf schema={schema} />
              {constraints(schema).length > 0 && (
                <span className="text-slate-700"> · {constraints(schema).join(" · ")}</span>
              )}
            </p>
          )}
        </section>
      ))}
    </section>
  );
}
