import { Table } from "@/components/ui";
import { deref, type Doc, type Response } from "./document";
import { ExampleList } from "./example-list";
import { InlineText } from "./inline-text";
import { errorCodes } from "./sections";
import { BodySchema, TypeOf } from "./schema-type";

/** An operation's (or a webhook's) responses, per status: description, body, headers, error codes, examples. */
export function ResponseList({
  doc,
  responses,
  label,
}: {
  doc: Doc;
  responses: Record<string, Response> | undefined;
  label: string;
}) {
  return (
    <ul className="mt-1 space-y-3 text-sm" aria-label={`Responses of ${label}`}>
      {Object.entries(responses ?? {}).map(([status, raw]) => {
        const response = deref(doc, raw);
        const { codes, prose } = errorCodes(response);
        return (
          <li key={status} className="min-w-0">
            <div className="flex flex-wrap gap-x-2">
              <code className={`font-semibold ${status.startsWith("2") ? "text-emerald-800" : "text-red-800"}`}>
                {status}
              </code>
              {prose && (
                <span className="text-slate-700">
                  <InlineText text={response.description} />
                </span>
              )}
              <BodySchema media={response.content} label={`response ${status}`} />
            </div>
            {codes.length > 0 && (
              <ul className="mt-1 space-y-0.5 pl-4" aria-label={`Error codes of ${status}, ${label}`}>
                {codes.map(({ code, meaning }) => (
                  <li key={code} className="text-slate-700">
                    <code className="font-mono font-semibold text-red-900">{code}</code>
                    {meaning && (
                      <>
                        {" "}
                        — <InlineText text={meaning} />
                      </>
                    )}
                  </li>
                ))}
              </ul>
            )}
            <HeadersTable doc={doc} headers={response.headers} label={`Headers of ${status}, ${label}`} />
            <ExampleList doc={doc} media={response.content} />
          </li>
        );
      })}
    </ul>
  );
}

const HEADER_COLUMNS = [{ label: "Header" }, { label: "Type" }, { label: "Description" }];

function HeadersTable({ doc, headers, label }: { doc: Doc; headers: Response["headers"]; label: string }) {
  const rows = Object.entries(headers ?? {}).map(([name, h]) => [name, deref(doc, h)] as const);
  if (rows.length === 0) return null;
  return (
    <Table
      label={label}
      look="plain"
      pad="py-1"
      columns={HEADER_COLUMNS}
      rows={rows}
      className="mt-1 text-left"
      bodyClassName="align-top"
    >
      {([name, h]) => (
        <tr key={name}>
          <td className="whitespace-nowrap py-1 pr-4 font-mono">{name}</td>
          <td className="py-1 pr-4">
            <TypeOf schema={h.schema} />
          </td>
          <td className="py-1 text-slate-700">
            <InlineText text={h.description} />
          </td>
        </tr>
      )}
    </Table>
  );
}
