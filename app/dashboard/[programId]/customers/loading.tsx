/** The customer list's skeleton: filters and table rows. */
export default function Loading() {
  return (
    <div className="animate-pulse space-y-4" role="status" aria-busy="true">
      <span className="sr-only">Loading customers…</span>
      <div className="h-8 w-48 rounded bg-slate-200" />
      <div className="h-16 rounded-lg bg-slate-200" />
      <div className="space-y-2 rounded-lg border border-slate-200 bg-white p-4">
        {Array.from({ length: 10 }, (_, i) => (
          <div key={i} className="h-6 rounded bg-slate-200" />
        ))}
      </div>
    </div>
  );
}
