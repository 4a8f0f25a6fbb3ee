import { openApiDocument } from "@/lib/api/openapi";
import { TableScroll } from "@/components/ui";

/**
 * A readable rendering of /v1/openapi.json (the same document, built from the handlers' zod schemas): every
 * operation with its parameters, body and responses, then every schema with its fields. Server-rendered,
 * no client script and nothing loaded from elsewhere.
 */

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  required?: string[];
  description?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
};
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema };
type Media = Record<string, { schema?: Schema }>;
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content: Media };
  responses: Record<string, { description: string; content?: Media }>;
  security?: Record<string, string[]>[];
};
type Doc = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes?: Record<string, { type: string; in?: string; name?: string; scheme?: string; description?: string }> };
};

const refName = (ref: string) => ref.split("/").at(-1)!;
const anchor = (name: string) => `schema-${name}`;

function TypeOf({ schema }: { schema: Schema | undefined }) {
  if (!schema) return <span>any</span>;
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return (
      <a href={`#${anchor(name)}`} className="font-mono text-indigo-700 underline decoration-indigo-300 hover:decoration-indigo-700">
        {name}
      </a>
    );
  }
  const union = schema.anyOf ?? schema.oneOf;
  if (union) {
    return (
      <>
        {union.map((s, i) => (
          <span key={i}>
            {i > 0 && " | "}
            <TypeOf schema={s} />
          </span>
        ))}
      </>
    );
  }
  if (schema.allOf?.length === 1) return <TypeOf schema={schema.allOf[0]} />;
  if (schema.enum) return <span className="font-mono">{schema.enum.map((v) => JSON.stringify(v)).join(" | ")}</span>;
  if (schema.const !== undefined) return <span className="font-mono">{JSON.stringify(schema.const)}</span>;
  if (schema.type === "array") {
    return (
      <>
        array of <TypeOf schema={schema.items} />
      </>
    );
  }
  if (schema.type === "object" && !schema.properties && schema.additionalProperties && schema.additionalProperties !== true) {
    return (
      <>
        object of string → <TypeOf schema={schema.additionalProperties} />
      </>
    );
  }
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "any");
  return <span className="font-mono">{schema.format ? `${type} (${schema.format})` : type}</span>;
}

/** Limits and defaults, in words. */
function constraints(schema: Schema | undefined): string[] {
  if (!schema) return [];
  const inner = schema.anyOf?.find((s) => s.type !== "null") ?? schema;
  const out: string[] = [];
  if (inner.minLength !== undefined && inner.maxLength !== undefined) out.push(`${inner.minLength}–${inner.maxLength} characters`);
  else if (inner.maxLength !== undefined) out.push(`at most ${inner.maxLength} characters`);
  else if (inner.minLength !== undefined) out.push(`at least ${inner.minLength} characters`);
  if (inner.minimum !== undefined) out.push(`≥ ${inner.minimum.toLocaleString("en-US")}`);
  if (inner.maximum !== undefined) out.push(`≤ ${inner.maximum.toLocaleString("en-US")}`);
  if (inner.minItems !== undefined) out.push(`at least ${inner.minItems} items`);
  if (inner.maxItems !== undefined) out.push(`at most ${inner.maxItems} items`);
  // A format (date-time, email…) says it better than the regular expression zod derives from it.
  if (inner.pattern && !inner.format) out.push(`pattern ${inner.pattern}`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  const example = schema.example ?? schema.examples?.[0] ?? inner.example ?? inner.examples?.[0];
  if (example !== undefined) out.push(`e.g. ${typeof example === "string" ? example : JSON.stringify(example)}`);
  return out;
}

function FieldsTable({ schema, label }: { schema: Schema; label: string }) {
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return null;
  const required = new Set(schema.required ?? []);
  return (
    <TableScroll>
      <table className="mt-2 min-w-full text-left text-sm" aria-label={label}>
        <thead className="text-xs font-semibold uppercase tracking-wide text-slate-700">
          <tr>
            <th scope="col" className="py-1 pr-4">Field</th>
            <th scope="col" className="py-1 pr-4">Type</th>
            <th scope="col" className="py-1">Notes</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 align-top">
          {props.map(([name, prop]) => (
            <tr key={name}>
              <td className="whitespace-nowrap py-1 pr-4 font-mono">
                {name}
                {required.has(name) ? <span className="ml-1 font-sans text-xs font-semibold text-red-800">required</span> : null}
              </td>
              <td className="py-1 pr-4">
                <TypeOf schema={prop} />
              </td>
              <td className="py-1 text-slate-700">{[prop.description, ...constraints(prop)].filter(Boolean).join(" · ") || "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

const METHOD_TONES: Record<string, string> = {
  get: "bg-emerald-100 text-emerald-900",
  post: "bg-indigo-100 text-indigo-900",
  delete: "bg-red-100 text-red-900",
  patch: "bg-amber-100 text-amber-900",
  put: "bg-amber-100 text-amber-900",
};

function MethodBadge({ method }: { method: string }) {
  return <span className={`rounded px-1.5 py-0.5 font-mono text-xs font-bold uppercase ${METHOD_TONES[method] ?? "bg-slate-100 text-slate-900"}`}>{method}</span>;
}

function BodySchema({ media, label }: { media: Media | undefined; label: string }) {
  const [type, entry] = Object.entries(media ?? {})[0] ?? [];
  if (!type || !entry?.schema) return null;
  return (
    <span>
      <TypeOf schema={entry.schema} /> <span className="text-xs text-slate-600">({type})</span>
      <span className="sr-only"> {label}</span>
    </span>
  );
}

export function ApiReference({ headingLevel = 1 }: { headingLevel?: 1 | 2 }) {
  const doc = JSON.parse(openApiDocument()) as Doc;
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op, id: op.operationId ?? `${method}-${path}` })),
  );
  const schemas = Object.entries(doc.components.schemas);
  const H = headingLevel === 1 ? "h1" : "h2";
  const H2 = headingLevel === 1 ? "h2" : "h3";
  const H3 = headingLevel === 1 ? "h3" : "h4";
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
            <span className="font-semibold">Authentication ({name}):</span> {s.in ? `${s.in} ${s.name}` : s.scheme ?? s.type}
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
        {ops.map(({ path, method, op, id }) => (
          <section key={id} id={id} className="scroll-mt-20 rounded-lg border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby={`${id}-title`}>
            <H2 id={`${id}-title`} className="text-lg font-semibold">
              {op.summary ?? id}
            </H2>
            <p className="mt-1 flex flex-wrap items-baseline gap-2 break-all font-mono text-sm">
              <MethodBadge method={method} /> {path}
            </p>
            {op.description && <p className="mt-2 text-sm text-slate-700">{op.description}</p>}
            {op.parameters && op.parameters.length > 0 && (
              <>
                <H3 className="mt-3 text-sm font-semibold">Parameters</H3>
                <TableScroll>
                  <table className="mt-1 min-w-full text-left text-sm" aria-label={`Parameters of ${op.summary ?? id}`}>
                    <thead className="text-xs font-semibold uppercase tracking-wide text-slate-700">
                      <tr>
                        <th scope="col" className="py-1 pr-4">Name</th>
                        <th scope="col" className="py-1 pr-4">In</th>
                        <th scope="col" className="py-1 pr-4">Type</th>
                        <th scope="col" className="py-1">Notes</th>
                      </tr>
                    </thead>
                    <tbody className="divide-y divide-slate-100 align-top">
                      {op.parameters.map((p) => (
                        <tr key={p.in + p.name}>
                          <td className="whitespace-nowrap py-1 pr-4 font-mono">
                            {p.name}
                            {p.required ? <span className="ml-1 font-sans text-xs font-semibold text-red-800">required</span> : null}
                          </td>
                          <td className="py-1 pr-4">{p.in}</td>
                          <td className="py-1 pr-4">
                            <TypeOf schema={p.schema} />
                          </td>
                          <td className="py-1 text-slate-700">{[p.description, ...constraints(p.schema)].filter(Boolean).join(" · ") || "—"}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
              </>
            )}
            {op.requestBody && (
              <>
                <H3 className="mt-3 text-sm font-semibold">Request body{op.requestBody.required ? "" : " (optional)"}</H3>
                <p className="mt-1 text-sm">
                  <BodySchema media={op.requestBody.content} label="request body" />
                </p>
              </>
            )}
            <H3 className="mt-3 text-sm font-semibold">Responses</H3>
            <ul className="mt-1 space-y-1 text-sm">
              {Object.entries(op.responses).map(([status, r]) => (
                <li key={status} className="flex flex-wrap gap-x-2">
                  <code className={`font-semibold ${status.startsWith("2") ? "text-emerald-800" : "text-red-800"}`}>{status}</code>
                  <span className="text-slate-700">{r.description}</span>
                  <BodySchema media={r.content} label={`response ${status}`} />
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>

      <section aria-labelledby="schemas-title" className="space-y-4">
        <H2 id="schemas-title" className="text-xl font-semibold">
          Schemas
        </H2>
        {schemas.map(([name, schema]) => (
          <section key={name} id={anchor(name)} className="scroll-mt-20 rounded-lg border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby={`${anchor(name)}-title`}>
            <H3 id={`${anchor(name)}-title`} className="font-mono text-base font-semibold">
              {name}
            </H3>
            {schema.description && <p className="mt-1 text-sm text-slate-700">{schema.description}</p>}
            {schema.properties ? (
              <FieldsTable schema={schema} label={`Fields of ${name}`} />
            ) : (
              <p className="mt-1 text-sm">
                <TypeOf schema={schema} />
                {constraints(schema).length > 0 && <span className="text-slate-700"> · {constraints(schema).join(" · ")}</span>}
              </p>
            )}
          </section>
        ))}
      </section>
    </div>
  );
}
