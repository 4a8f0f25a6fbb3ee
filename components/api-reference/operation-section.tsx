import { deref, type Doc, type OperationEntry, type Schema } from "./document";
import { ExampleList } from "./example-list";
import { FieldsTable, ParametersTable } from "./fields-table";
import { headings } from "./headings";
import { InlineText } from "./inline-text";
import { RequestExampleList } from "./request-example-list";
import { ResponseList } from "./response-list";
import { BodySchema, MethodBadge } from "./schema-type";

/** What a part of an operation is called: for a webhook event the service sends the request and the receiver answers. */
const PARTS = {
  operation: { parameters: "Parameters", body: "Request body", responses: "Responses" },
  webhook: { parameters: "Headers and parameters", body: "Payload", responses: "Expected answers" },
};

/**
 * One operation of the reference, or one webhook event (`path` is then the event type, its heading): method and
 * path, parameters, request body with its examples, and responses.
 */
export function OperationSection({
  doc,
  entry: { path, method, op, id },
  headingLevel,
  kind = "operation",
}: {
  doc: Doc;
  entry: OperationEntry;
  headingLevel: 1 | 2;
  kind?: keyof typeof PARTS;
}) {
  const [, , H3, H4] = headings(headingLevel);
  const parts = PARTS[kind];
  const name = kind === "webhook" ? path : (op.summary ?? id);
  const parameters = (op.parameters ?? []).map((p) => deref(doc, p));
  const body = op.requestBody && deref(doc, op.requestBody);
  return (
    <section
      id={id}
      className="scroll-mt-20 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
      aria-labelledby={`${id}-title`}
    >
      <H3 id={`${id}-title`} className="text-lg font-semibold">
        {name}
      </H3>
      {kind === "webhook" ? (
        op.summary && (
          <p className="mt-1 text-sm font-semibold text-slate-800">
            <InlineText text={op.summary} />
          </p>
        )
      ) : (
        <p className="mt-1 flex flex-wrap items-baseline gap-2 break-all font-mono text-sm">
          <MethodBadge method={method} /> {path}
        </p>
      )}
      {op.description && (
        <p className="mt-2 text-sm text-slate-700">
          <InlineText text={op.description} />
        </p>
      )}
      {kind === "operation" && (
        <>
          <H4 className="mt-3 text-sm font-semibold">Example request</H4>
          <RequestExampleList doc={doc} entry={{ path, method, op, id }} name={name} />
        </>
      )}
      {parameters.length > 0 && (
        <>
          <H4 className="mt-3 text-sm font-semibold">{parts.parameters}</H4>
          <ParametersTable parameters={parameters} label={`Parameters of ${name}`} />
        </>
      )}
      {body && (
        <>
          <H4 className="mt-3 text-sm font-semibold">
            {parts.body}
            {body.required || kind === "webhook" ? "" : " (optional)"}
          </H4>
          {body.description && (
            <p className="mt-1 text-sm text-slate-700">
              <InlineText text={body.description} />
            </p>
          )}
          <p className="mt-1 text-sm">
            <BodySchema media={body.content} label="request body" />
          </p>
          {inlineParts(Object.values(body.content)[0]?.schema).map((schema, i) => (
            <FieldsTable key={i} schema={schema} label={`${parts.body} of ${name}`} />
          ))}
          <ExampleList doc={doc} media={body.content} of={`${parts.body} of ${name}`} />
        </>
      )}
      {op.responses && Object.keys(op.responses).length > 0 && (
        <>
          <H4 className="mt-3 text-sm font-semibold">{parts.responses}</H4>
          <ResponseList doc={doc} responses={op.responses} label={name} />
        </>
      )}
    </section>
  );
}

/** The parts of a body schema written inline (not a `$ref` to a named schema, which has its own table). */
const inlineParts = (schema: Schema | undefined): Schema[] =>
  !schema ? [] : schema.properties ? [schema] : (schema.allOf ?? []).filter((s) => s.properties);
