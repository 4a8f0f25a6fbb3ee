/** The customer page's skeleton: header, three cards, the forms, the history. */
export default function Loading() {
  return (
    <div className="animate-pulse space-y-6" role="status" aria-busy="true">
      <span className="sr-only">Loading the customer…</span>
      <div className="space-y-2">
        <div className="h-4 w-40 rounded bg-slate-200" />
        <div className="h-8 w-80 max-w-full rounded bg-slate-200" />
        <div className="h-4 w-64 max-w-full rounded bg-slate-200" />
      </div>
      <div className="grid gap-4 lg:grid-cols-3">
        {[0, 1, 2].map((i) => (
          <div key={i} className="h-44 rounded-lg bg-slate-200" />
        ))}
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <div className="h-80 rounded-lg bg-slate-200" />
        <div className="h-80 rounded-lg bg-slate-200" />
      </div>
      <div className="h-48 rounded-lg bg-slate-200" />
    </div>
  );
}
