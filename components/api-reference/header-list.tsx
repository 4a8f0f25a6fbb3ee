import { Table } from "@/components/ui";
import type { Doc } from "./document";
import { headings } from "./headings";
import { InlineText } from "./inline-text";
import { responseHeaders } from "./sections";
import { TypeOf } from "./schema-type";

const COLUMNS = [{ label: "Header" }, { label: "Type" }, { label: "Description" }];

/** Every response header of the document, described once; each response's status lists and links its headers. */
export function HeaderList({ doc, headingLevel }: { doc: Doc; headingLevel: 1 | 2 }) {
  const headers = responseHeaders(doc);
  if (headers.length === 0) return null;
  const [, H2] = headings(headingLevel);
  return (
    <section
      id="response-headers"
      aria-labelledby="response-headers-title"
      className="scroll-mt-20 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
    >
      <H2 id="response-headers-title" className="text-xl font-semibold">
        Response headers
      </H2>
      <Table
        label="Response headers"
        look="plain"
        pad="py-1"
        columns={COLUMNS}
        rows={headers}
        className="mt-2 text-left"
        bodyClassName="align-top"
      >
        {(h) => (
          <tr key={h.id} id={h.id} className="scroll-mt-20">
            <td className="whitespace-nowrap py-1 pr-4 font-mono">{h.name}</td>
            <td className="py-1 pr-4">
              <TypeOf schema={h.schema} />
            </td>
            <td className="py-1 text-slate-700">
              <div className="min-w-64">
                {h.descriptions.map((d, i) => (
                  <span key={i} className="block">
                    <InlineText text={d} />
                  </span>
                ))}
              </div>
            </td>
          </tr>
        )}
      </Table>
    </section>
  );
}
