import { requirePage } from "@/lib/staff/session";
import { ApiReference } from "@/components/api-reference/api-reference";

export const metadata = { title: "API reference · Loyalty" };

export default async function ApiReferencePage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  await requirePage(programId, "program.read");
  return (
    <div className="max-w-5xl">
      <p className="mb-4 rounded-md border border-indigo-200 bg-indigo-50 px-3 py-2 text-sm text-indigo-950">
        This program&apos;s id for API paths: <code className="break-all font-mono">{programId}</code>
      </p>
      <ApiReference />
    </div>
  );
}
