import Link from "next/link";
import { dashboardPages } from "@/lib/staff/urls";
import { Card } from "@/components/ui";

/** The segments the customer is in now (each segment's filter at the program clock's now), linked to their pages. */
export function SegmentsCard({ programId, segments }: { programId: string; segments: { id: string; name: string }[] }) {
  return (
    <Card title="Segments">
      {segments.length === 0 ? (
        <p className="text-sm text-slate-600">In no segment of the program.</p>
      ) : (
        <ul className="flex flex-wrap gap-2" aria-label="The customer's segments">
          {segments.map((s) => (
            <li key={s.id}>
              <Link
                href={dashboardPages.segment(programId, s.id)}
                className="inline-block rounded-full bg-indigo-50 px-3 py-1 text-sm font-medium text-indigo-800 ring-1 ring-indigo-200 hover:underline"
              >
                {s.name}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
