import Link from "next/link";

export default function NotFound() {
  return (
    <div className="max-w-lg space-y-3">
      <h1 className="text-2xl font-bold">Not found</h1>
      <p className="text-slate-700">There is nothing here: the customer may have been deleted, or the link is wrong.</p>
      <Link href="/dashboard" className="text-indigo-700 underline">
        Back to the dashboard
      </Link>
    </div>
  );
}
