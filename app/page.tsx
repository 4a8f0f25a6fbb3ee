import Link from "next/link";

const endpoints = [
  { method: "POST", path: "/v1/programs/{programId}/integrations/api", what: "Create or update customers in a batch" },
  { method: "DELETE", path: "/v1/programs/{programId}/integrations/api", what: "Erase customers' personal data" },
  { method: "GET", path: "/v1/programs/{programId}/customers/{email}", what: "Read a customer by e-mail" },
  { method: "POST", path: "/v1/programs/{programId}/customers/{email}/balance/increase", what: "Add points" },
  { method: "POST", path: "/v1/programs/{programId}/customers/{email}/balance/decrease", what: "Spend points" },
  { method: "GET", path: "/v1/programs/{programId}/customers/{email}/transactions", what: "Points history" },
  { method: "GET", path: "/v1/programs/{programId}/customers/{email}/balance", what: "The balance explained" },
  {
    method: "POST",
    path: "/v1/programs/{programId}/customers/{email}/earning-flows/{flowKey}",
    what: "Run a custom earning flow",
  },
  {
    method: "POST",
    path: "/v1/programs/{programId}/customers/{email}/rewards/{rewardId}/redeem",
    what: "Redeem a reward",
  },
  { method: "POST", path: "/v1/programs/{programId}/customers/{email}/coupons", what: "Assign a coupon" },
  {
    method: "POST",
    path: "/v1/programs/{programId}/customers/{email}/notifications",
    what: "Send a push notification",
  },
  { method: "GET", path: "/v1/programs/{programId}/customers/{email}/token", what: "Get a customer token for /me" },
  { method: "GET", path: "/v1/programs/{programId}/tiers", what: "Tiers" },
  { method: "GET", path: "/v1/programs/{programId}/rewards", what: "Active rewards" },
  { method: "GET", path: "/v1/programs/{programId}/me", what: "The token's customer (Bearer)" },
  {
    method: "GET",
    path: "/v1/programs/{programId}/me/transactions",
    what: "The token's customer's points history (Bearer)",
  },
  {
    method: "GET",
    path: "/v1/programs/{programId}/me/balance",
    what: "The token's customer's balance explained (Bearer)",
  },
  {
    method: "POST",
    path: "/v1/programs/{programId}/me/rewards/{rewardId}/redeem",
    what: "The token's customer redeems a reward (Bearer)",
  },
];

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
          {endpoints.map((e) => (
            <li key={e.path + e.method} className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:items-center sm:gap-4">
              <span className="w-16 shrink-0 font-mono text-sm font-semibold text-indigo-700">{e.method}</span>
              <code className="font-mono text-sm break-all">{e.path}</code>
              <span className="text-sm text-slate-600 sm:ml-auto">{e.what}</span>
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}
