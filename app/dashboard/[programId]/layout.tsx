import { db } from "@/lib/db/client";
import { membershipsOf } from "@/lib/domain/staff";
import { requirePage } from "@/lib/staff/session";
import { can } from "@/lib/staff/permissions";
import { Providers } from "@/components/providers";
import { Sidebar } from "@/components/dashboard/sidebar";
import { GlobalSearch } from "@/components/dashboard/global-search";

export default async function ProgramLayout({ children, params }: { children: React.ReactNode; params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const programs = (await membershipsOf(await db(), staff.staffId)).map((m) => ({ id: m.programId, name: m.program.name, role: m.role }));
  const links = [
    { href: `/dashboard/${programId}`, label: "Overview" },
    { href: `/dashboard/${programId}/customers`, label: "Customers" },
    { href: `/dashboard/${programId}/tiers`, label: "Tiers" },
    ...(can(staff.role, "apikeys.manage") ? [{ href: `/dashboard/${programId}/api-keys`, label: "API keys" }] : []),
    ...(can(staff.role, "audit.read") ? [{ href: `/dashboard/${programId}/audit`, label: "Audit log" }] : []),
    { href: "/docs", label: "API reference" },
  ];
  return (
    <Providers>
      <div className="min-h-screen md:flex">
        <Sidebar links={links} programs={programs} current={programId} staffEmail={staff.email} role={staff.role} />
        <div className="min-w-0 flex-1">
          <header className="sticky top-0 z-10 border-b border-slate-200 bg-white/95 px-4 py-3 backdrop-blur md:px-8">
            <GlobalSearch programId={programId} />
          </header>
          <main id="main" className="px-4 py-6 md:px-8">
            {children}
          </main>
        </div>
      </div>
    </Providers>
  );
}
