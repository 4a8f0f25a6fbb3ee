import Link from "next/link";
import { ENDPOINTS } from "@/lib/api/openapi/paths";

export default function Home() {
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">Loyalty</p>
      <h1 className="mt-2 text-4xl font-bold tracking-tight">Loyalty-program service</h1>
      <p className="mt-4 text-lg text-slate-600">
        Customers, points and tiers for your program, through a versioned REST API authenticated with an{" "}
        <code className="rounded bg-slate-200 px-1 py-0.5 text-sm">api-key</code> header.
      </p>
      <div className="mt-8 flex flex-wrap gap-4">
        <Link
          href="/v1/openapi.json"
          className="rounded-md bg-indigo-600 px-4 py-2 font-medium text-white shadow-sm hover:bg-indigo-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400"
        >
          API reference (OpenAPI 3.1)
        </Link>
        <Link
          href="/docs"
          className="rounded-md border border-slate-300 bg-white px-4 py-2 font-medium text-slate-800 shadow-sm hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400"
        >
          Readable reference
        </Link>
        <Link
          href="/signin"
          className="rounded-md border border-slate-300 bg-white px-4 py-2 font-medium text-slate-800 shadow-sm hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400"
        >
          Staff sign-in
        </Link>
      </div>
      <section className="mt-12" aria-labelledby="endpoints">
        <h2 id="endpoints" className="text-xl font-semibold">
          Endpoints
        </h2>
        <ul className="mt-4 divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
          {ENDPOINTS.map((e) => (
            <li key={e.path + e.method} className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:items-center sm:gap-4">
              <span className="w-16 shrink-0 font-mono text-sm font-semibold text-indigo-700">{e.method}</span>
              <code className="font-mono text-sm break-all">{e.path}</code>
              <span className="text-sm text-slate-600 sm:ml-auto">{e.summary}</span>
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}
