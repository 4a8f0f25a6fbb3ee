import { Fragment } from "react";

/**
 * A description as the document writes it: text between backticks is code (`not_found`), the rest plain text.
 * React escapes every part, so a description can never inject markup; an unmatched backtick is shown as written.
 */
export function InlineText({ text }: { text: string | undefined }) {
  if (!text) return null;
  const parts = text.split("`");
  return (
    <>
      {parts.map((part, i) => {
        if (i % 2 === 0) return <Fragment key={i}>{part}</Fragment>;
        if (i === parts.length - 1) return <Fragment key={i}>{`\`${part}`}</Fragment>;
        return (
          <code key={i} className="rounded bg-slate-100 px-1 font-mono text-[0.9em] text-slate-900">
            {part}
          </code>
        );
      })}
    </>
  );
}
