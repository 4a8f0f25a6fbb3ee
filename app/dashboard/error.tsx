"use client";

import Link from "next/link";

/** When the dashboard's frame itself (session, program, navigation) fails to load. */
export default function DashboardFrameError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <main className="mx-auto max-w-lg space-y-3 px-4 py-16" role="alert">
      <h1 className="text-xl font-bold">The dashboard could not load</h1>
      <p className="text-slate-700">
        Something went wrong on our side{error.digest ? ` (reference ${error.digest})` : ""}. Try again in a moment.
      </p>
      <div className="flex gap-3">
        <button
          className="rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400"
          onClick={reset}
        >
          Try again
        </button>
        <Link
          href="/"
          className="rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium text-slate-800"
        >
          Home
        </Link>
      </div>
    </main>
  );
}
