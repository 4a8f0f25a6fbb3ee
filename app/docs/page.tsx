import Link from "next/link";
import { openApiDocument } from "@/lib/api/openapi";

export const metadata = { title: "API reference · Loyalty" };

type Operation = { summary?: string; description?: string; operationId?: string; parameters?: { name: string; in: string; required?: boolean; description?: string }[]; requestBody?: { content: Record<string, { schema: { $ref?: string } }> }; responses: Record<string, { description: string }> };

/** The /v1 reference, rendered from the same OpenAPI document integrators download. */
export default function Docs() {
  const doc = JSON.parse(openApiDocument()) as { info: { title: string; description: string }; paths: Record<string, Record<string, Operation>> };
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
  return (
    <main className="mx-auto max-w-4xl px-4 py-10">
      <p className="text-sm font-semibold uppercase tracking-wide text-indigo-700">
        <Link href="/">Loyalty</Link>
      </p>
      <h1 className="mt-1 text-3xl font-bold">{doc.info.title}</h1>
      <p className="mt-2 text-slate-700">{doc.info.description}</p>
      <p className="mt-2 text-sm">
        Machine-readable: <a className="text-indigo-700 underline" href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1)
      </p>
      <nav aria-label="Operations" className="mt-6">
        <ul className="grid gap-1 text-sm sm:grid-cols-2">
          {ops.map(({ path, method, op }) => (
            <li key={method + path}>
              <a className="text-indigo-700 hover:underline" href={`#${op.operationId}`}>
                {op.summary}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="mt-8 space-y-6">
        {ops.map(({ path, method, op }) => (
          <section key={method + path} id={op.operationId} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby={`${op.operationId}-title`}>
            <h2 id={`${op.operationId}-title`} className="text-lg font-semibold">
              {op.summary}
            </h2>
            <p className="mt-1 break-all font-mono text-sm">
              <span className="mr-2 font-bold text-indigo-800">{method.toUpperCase()}</span>
              {path}
            </p>
            {op.description && <p className="mt-2 text-sm text-slate-700">{op.description}</p>}
            {op.parameters && op.parameters.length > 0 && (
              <ul className="mt-2 text-sm">
                {op.parameters.map((p) => (
                  <li key={p.in + p.name}>
                    <code>{p.name}</code> <span className="text-slate-600">({p.in}{p.required ? ", required" : ""})</span> {p.description}
                  </li>
                ))}
              </ul>
            )}
            {op.requestBody && (
              <p className="mt-2 text-sm">
                Body: <code>{Object.values(op.requestBody.content)[0]?.schema.$ref?.split("/").at(-1)}</code>
              </p>
            )}
            <ul className="mt-2 text-sm">
              {Object.entries(op.responses).map(([status, r]) => (
                <li key={status}>
                  <code className="font-semibold">{status}</code> {r.description}
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </main>
  );
}
