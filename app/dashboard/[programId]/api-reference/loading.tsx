/**
 * The API reference streams (it is long): its only check is the layout's (`program.read`, a member of the program),
 * made before this boundary, so streaming cannot hide a 403 or 404 here. Other dashboard pages render whole so that
 * their not-found and forbidden answers carry the real status (lib/staff/session.ts `requirePage`).
 */
export default function Loading() {
  return (
    <div className="animate-pulse space-y-4" role="status" aria-busy="true">
      <span className="sr-only">Loading the API reference…</span>
      <div className="h-8 w-64 rounded bg-slate-200" />
      <div className="h-72 rounded-lg bg-slate-200" />
    </div>
  );
}
