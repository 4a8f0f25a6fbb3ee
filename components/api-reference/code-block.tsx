/**
 * The one place for a block of code to read and copy (an example request, a delivery's payload): a labelled region
 * (the pattern axe's scrollable-region-focusable asks for) that scrolls sideways inside itself when `wrap` is off,
 * reachable with Tab (tabIndex 0) and scrolled with the arrow keys, with a visible focus ring.
 */
export function CodeBlock({
  label,
  code,
  wrap = false,
  className,
}: {
  label: string;
  code: string;
  /** Wrap long lines instead of scrolling (JSON reads well wrapped; a shell command does not). */
  wrap?: boolean;
  className?: string;
}) {
  return (
    <pre
      tabIndex={0}
      role="region"
      aria-label={label}
      className={`${className ? `${className} ` : ""}rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400 focus-visible:ring-offset-2 ${
        wrap ? "whitespace-pre-wrap [overflow-wrap:anywhere]" : "overflow-x-auto whitespace-pre"
      }`}
    >
      <code>{code}</code>
    </pre>
  );
}
