/**
 * On every page of a test program: it is not a live program, its keys are lk_test_ keys, and its clock stands where
 * the last advance left it (API.md "Test programs").
 */
export function TestProgramBanner({ clockAt }: { clockAt: Date }) {
  return (
    <div
      role="status"
      aria-label="Test program"
      className="border-b-2 border-amber-500 bg-amber-100 px-4 py-2 text-sm text-amber-950 md:px-8"
    >
      <strong className="mr-2 rounded bg-amber-500 px-1.5 py-0.5 font-bold uppercase tracking-wide text-white">
        Test program
      </strong>
      Not live: its API keys start lk_test_, its webhooks say livemode false, and its clock stands at{" "}
      <time dateTime={clockAt.toISOString()} className="font-semibold">
        {clockAt.toISOString().replace("T", " ").slice(0, 16)} UTC
      </time>{" "}
      until it is advanced.
    </div>
  );
}
