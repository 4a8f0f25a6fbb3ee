export default function Loading() {
  return (
    <div className="animate-pulse space-y-4" role="status" aria-busy="true">
      <span className="sr-only">Loading…</span>
      <div className="h-8 w-64 rounded bg-slate-200" />
      <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
        {[0, 1, 2, 3].map((i) => (
          <div key={i} className="h-24 rounded-lg bg-slate-200" />
        ))}
      </div>
      <div className="h-72 rounded-lg bg-slate-200" />
    </div>
  );
}
