/** What `forbidden()` (lib/staff/session.ts `requirePage`) shows, with HTTP 403: the role lacks the page's permission. */
export default function Forbidden() {
  return (
    <div className="max-w-lg space-y-2">
      <h1 className="text-2xl font-bold">Not for your role</h1>
      <p className="text-slate-700">
        Your role in this program does not include this page. An owner can change your role.
      </p>
    </div>
  );
}
