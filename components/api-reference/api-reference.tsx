/**
 * A readable rendering of /v1/openapi.json (the same document, built from the handlers' zod schemas): the
 * operations grouped by tag, each with its parameters, body, responses, headers, error codes and examples; the
 * webhook events; then every schema with its fields. Server-rendered, no client script, nothing loaded from elsewhere.
 */
import { loadDocument, operationsOf, slug } from "./document";
import { HeaderList } from "./header-list";
import { headings } from "./headings";
import { InlineText } from "./inline-text";
import { OperationSection } from "./operation-section";
import { SchemaList } from "./schema-list";
import { groupByTag } from "./sections";
import { MethodBadge } from "./schema-type";

export function ApiReference({ headingLevel = 1 }: { headingLevel?: 1 | 2 }) {
  const { doc, operations } = loadDocument();
  const groups = groupByTag(doc, operations);
  const webhooks = operationsOf(doc.webhooks, "webhook-");
  const [H, H2, H3] = headings(headingLevel);
  return (
    <div className="space-y-8" data-api-reference>
      <header>
        <H className="text-3xl font-bold">{doc.info.title}</H>
        <p className="mt-1 text-sm text-slate-600">Version {doc.info.version}</p>
        {doc.info.description && (
          <p className="mt-2 max-w-3xl text-slate-700">
            <InlineText text={doc.info.description} />
          </p>
        )}
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
            {s.description && (
              <>
                {" — "}
                <InlineText text={s.description} />
              </>
            )}
          </p>
        ))}
      </header>

      <nav aria-label="Operations" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
        <H2 className="text-sm font-semibold text-slate-800">Operations</H2>
        <div className="mt-2 grid gap-x-6 gap-y-3 text-sm md:grid-cols-2">
          {groups.map((group) => (
            <div key={group.id}>
              <H3 className="font-semibold text-slate-700">
                <a className="hover:underline" href={`#${group.id}`}>
                  {group.name}
                </a>
              </H3>
              <ul className="mt-1 space-y-1">
                {group.operations.map(({ method, op, id, path }) => (
                  <li key={id} className="flex items-baseline gap-2">
                    <MethodBadge method={method} />
                    <a className="text-indigo-700 hover:underline" href={`#${id}`}>
                      {op.summary ?? path}
                    </a>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
        {webhooks.length > 0 && (
          <div className="mt-3 text-sm">
            <H3 className="font-semibold text-slate-700">
              <a className="hover:underline" href="#webhooks">
                Webhooks
              </a>
            </H3>
            <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
              {webhooks.map(({ path }) => (
                <li key={path}>
                  <a className="font-mono text-indigo-700 hover:underline" href={`#webhook-${slug(path)}`}>
                    {path}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        )}
      </nav>

      {groups.map((group) => (
        <section key={group.id} id={group.id} aria-labelledby={`${group.id}-title`} className="scroll-mt-20 space-y-4">
          <H2 id={`${group.id}-title`} className="text-xl font-semibold">
            {group.name}
          </H2>
          {group.description && (
            <p className="max-w-3xl text-sm text-slate-700">
              <InlineText text={group.description} />
            </p>
          )}
          {group.operations.map((entry) => (
            <OperationSection key={entry.id} doc={doc} entry={entry} headingLevel={headingLevel} />
          ))}
        </section>
      ))}

      {webhooks.length > 0 && (
        <section id="webhooks" aria-labelledby="webhooks-title" className="scroll-mt-20 space-y-4">
          <H2 id="webhooks-title" className="text-xl font-semibold">
            Webhooks
          </H2>
          <p className="max-w-3xl text-sm text-slate-700">
            What the service POSTs to a program&apos;s webhook URLs: one JSON request per event, under the event&apos;s
            type.
          </p>
          {webhooks.map((entry) => (
            <OperationSection
              key={entry.id}
              doc={doc}
              entry={{ ...entry, id: `webhook-${slug(entry.path)}` }}
              headingLevel={headingLevel}
              kind="webhook"
            />
          ))}
        </section>
      )}

      <HeaderList doc={doc} headingLevel={headingLevel} />
      <SchemaList doc={doc} headingLevel={headingLevel} />
    </div>
  );
}
