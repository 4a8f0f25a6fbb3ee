import type { Doc, Media } from "./document";
import { CodeBlock } from "./code-block";
import { InlineText } from "./inline-text";
import { examplesOf } from "./sections";

/**
 * A body's examples as captioned JSON blocks, ready to select and copy. Long lines wrap instead of scrolling, so
 * a phone shows the whole example; the block is still focusable (tall ones scroll with the page).
 */
export function ExampleList({ doc, media, of }: { doc: Doc; media: Media | undefined; of: string }) {
  const examples = examplesOf(doc, media);
  if (examples.length === 0) return null;
  return (
    <div className="mt-2 space-y-2">
      {examples.map((e) => (
        <figure key={e.key} className="min-w-0">
          <figcaption className="text-xs text-slate-700">
            <span className="font-semibold">Example: {e.name}</span> <span>({e.mediaType})</span>
            {e.description && (
              <>
                {" "}
                — <InlineText text={e.description} />
              </>
            )}
          </figcaption>
          <CodeBlock label={`Example ${e.name}: ${of}`} code={e.json} wrap className="mt-1" />
        </figure>
      ))}
    </div>
  );
}
