import type { OperationEntry } from "./document";
import { ParametersTable } from "./fields-table";
import { headings } from "./headings";
import { BodySchema, MethodBadge } from "./schema-type";

/** One operation of the reference: method and path, parameters, request body and responses. */
export function OperationSection({
  entry: { path, method, op, id },
  headingLevel,
}: {
  entry: OperationEntry;
  headingLevel: 1 | 2;
}) {
  const [, H2, H3] = headings(headingLevel);
  return (
    <section
      id={id}
      className="scroll-mt-20 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
      aria-labelledby={`${id}-title`}
    >
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
          <ParametersTable parameters={op.parameters} label={`Parameters of ${op.summary ?? id}`} />
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
            <code className={`font-semibold ${status.startsWith("2") ? "text-emerald-800" : "text-red-800"}`}>
              {status}
            </code>
            <span className="text-slate-700">{r.description}</span>
            <BodySchema media={r.content} label={`response ${status}`} />
          </li>
        ))}
      </ul>
    </section>
  );
}
