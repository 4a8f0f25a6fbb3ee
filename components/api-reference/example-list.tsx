import type { Doc, Media } from "./document";
import { InlineText } from "./inline-text";
import { examplesOf } from "./sections";

/**
 * A body's examples as captioned JSON blocks, ready to select and copy. Long lines wrap instead of scrolling, so
 * a phone shows the whole example and no scroll box needs the keyboard.
 */
export function ExampleList({ doc, media }: { doc: Doc; media: Media | undefined }) {
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
          <pre className="mt-1 whitespace-pre-wrap rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100 [overflow-wrap:anywhere]">
            <code>{e.json}</code>
          </pre>
        </figure>
      ))}
    </div>
  );
}
