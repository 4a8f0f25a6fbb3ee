import { deref, type Doc, type Response } from "./document";
import { ExampleList } from "./example-list";
import { InlineText } from "./inline-text";
import { errorCodes } from "./sections";
import { BodySchema } from "./schema-type";

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
            <HeaderNames headers={response.headers} label={`Headers of ${status}, ${label}`} />
            <ExampleList doc={doc} media={response.content} of={`${status}, ${label}`} />
          </li>
        );
      })}
    </ul>
  );
}

/**
 * A status's headers by name, as one line of text: their descriptions are under "Response headers" (HeaderList),
 * once, since most come with every response (a link per name would add a thousand links to the page).
 */
function HeaderNames({ headers, label }: { headers: Response["headers"]; label: string }) {
  const names = Object.keys(headers ?? {});
  if (names.length === 0) return null;
  return (
    <p className="mt-1 pl-4 text-slate-700" aria-label={label}>
      <a href="#response-headers" className="text-indigo-700 underline">
        Headers
      </a>
      : <span className="font-mono">{names.join(", ")}</span>
    </p>
  );
}
