import Link from "next/link";
import { ApiReference } from "@/components/api-reference/api-reference";

export const metadata = { title: "API reference · Loyalty" };

/** The public /v1 reference (also inside the dashboard, under API reference). */
export default function Docs() {
  return (
    <main className="mx-auto max-w-5xl px-4 py-10">
      <p className="mb-2 text-sm font-semibold uppercase tracking-wide text-indigo-700">
        <Link href="/">Loyalty</Link>
      </p>
      <ApiReference />
    </main>
  );
}
