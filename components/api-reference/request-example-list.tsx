import { CodeBlock } from "./code-block";
import type { Doc, OperationEntry } from "./document";
import { requestExample } from "./request-examples";

/** An operation's example request, as curl and as TypeScript `fetch` (./request-examples.ts builds both). */
export function RequestExampleList({ doc, entry, name }: { doc: Doc; entry: OperationEntry; name: string }) {
  const example = requestExample(doc, entry);
  return (
    <div className="mt-2 grid min-w-0 gap-2">
      <figure className="min-w-0">
        <figcaption className="text-xs font-semibold text-slate-700">curl</figcaption>
        <CodeBlock label={`curl example: ${name}`} code={example.curl} className="mt-1" />
      </figure>
      <figure className="min-w-0">
        <figcaption className="text-xs font-semibold text-slate-700">TypeScript (fetch)</figcaption>
        <CodeBlock label={`TypeScript fetch example: ${name}`} code={example.fetch} className="mt-1" />
      </figure>
    </div>
  );
}
