/**
 * A readable rendering of /v1/openapi.json (the same document, built from the handlers' zod schemas): every
 * operation with its parameters, body and responses, then every schema with its fields. Server-rendered,
 * no client script and nothing loaded from elsewhere.
 */
import { anchor, constraints, loadDocument } from "./document";
import { FieldsTable } from "./fields-table";
import { headings } from "./headings";
import { OperationSection } from "./operation-section";
import { MethodBadge, TypeOf } from "./schema-type";

export function ApiReference({ headingLevel = 1 }: { headingLevel?: 1 | 2 }) {
  const { doc, operations: ops } = loadDocument();
  const schemas = Object.entries(doc.components.schemas);
  const [H, H2, H3] = headings(headingLevel);
  return (
    <div className="space-y-8">
      <header>
        <H className="text-3xl font-bold">{doc.info.title}</H>
        <p className="mt-1 text-sm text-slate-600">Version {doc.info.version}</p>
        {doc.info.description && <p className="mt-2 max-w-3xl text-slate-700">{doc.info.description}</p>}
        <p className="mt-2 text-sm">
          Machine-readable:{" "}
          <a className="text-indigo-700 underline" href="/v1/openapi.json">
            /v1/openapi.json
          </a>{" "}
          (OpenAPI 3.1, generated from the same zod schemas the handlers validate with).
        </p>
        {Object.entries(doc.components.securitySchemes ?? {}).map(([name, s]) => (
          <p key={name} className="mt-1 text-sm text-slate-700">
            <span className="font-semibold">Authentication ({name}):</span>{" "}
            {s.in ? `${s.in} ${s.name}` : (s.scheme ?? s.type)}
            {s.description ? ` — ${s.description}` : ""}
          </p>
        ))}
      </header>

      <nav aria-label="Operations" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
        <H2 className="text-sm font-semibold text-slate-800">Operations</H2>
        <ul className="mt-2 grid gap-1 text-sm md:grid-cols-2">
          {ops.map(({ method, op, id, path }) => (
            <li key={id} className="flex items-baseline gap-2">
              <MethodBadge method={method} />
              <a className="text-indigo-700 hover:underline" href={`#${id}`}>
                {op.summary ?? path}
              </a>
            </li>
          ))}
        </ul>
      </nav>

      <div className="space-y-4">
        {ops.map((entry) => (
          <OperationSection key={entry.id} entry={entry} headingLevel={headingLevel} />
        ))}
      </div>

      <section aria-labelledby="schemas-title" className="space-y-4">
        <H2 id="schemas-title" className="text-xl font-semibold">
          Schemas
        </H2>
        {schemas.map(([name, schema]) => (
          <section
            key={name}
            id={anchor(name)}
            className="scroll-mt-20 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
            aria-labelledby={`${anchor(name)}-title`}
          >
            <H3 id={`${anchor(name)}-title`} className="font-mono text-base font-semibold">
              {name}
            </H3>
            {schema.description && <p className="mt-1 text-sm text-slate-700">{schema.description}</p>}
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
    </div>
  );
}
