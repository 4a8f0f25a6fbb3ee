"use client";

export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="max-w-lg space-y-3" role="alert">
      <h1 className="text-xl font-bold">This page could not load</h1>
      <p className="text-slate-700">
        Something went wrong on our side{error.digest ? ` (reference ${error.digest})` : ""}.
      </p>
      <button className="rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
