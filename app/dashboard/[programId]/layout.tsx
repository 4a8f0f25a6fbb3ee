import { db } from "@/lib/db/client";
import { membershipsOf } from "@/lib/domain/staff";
import { MAX_ADVANCE_MONTHS } from "@/lib/domain/program-clock";
import { addMonths } from "@/lib/domain/tier-rules";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { navLinks } from "@/lib/staff/nav";
import { Providers } from "@/components/providers";
import { Sidebar } from "@/components/dashboard/sidebar";
import { GlobalSearch } from "@/components/dashboard/global-search";
import { TestProgramBanner } from "@/components/dashboard/test-program-banner";

export default async function ProgramLayout({
  children,
  params,
}: {
  children: React.ReactNode;
  params: Promise<{ programId: string }>;
}) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const programs = (await membershipsOf(await db(), staff.staffId)).map((m) => ({
    id: m.programId,
    name: m.program.name,
    role: m.role,
  }));
  const links = navLinks(staff);
  return (
    <Providers>
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-white px-3 py-2 text-sm font-medium text-indigo-800 focus:not-sr-only focus:absolute focus:left-2 focus:top-2"
      >
        Skip to content
      </a>
      <div className="min-h-screen md:flex">
        <Sidebar links={links} programs={programs} current={programId} staffEmail={staff.email} role={staff.role} />
        <div className="min-w-0 flex-1">
          {staff.programTest && staff.programClockAt && (
            <TestProgramBanner
              programId={programId}
              clockAt={staff.programClockAt}
              maxAt={addMonths(staff.programClockAt, MAX_ADVANCE_MONTHS)}
              canAdvance={can(staff.role, "clock.advance")}
            />
          )}
          <header className="sticky top-0 z-10 border-b border-slate-200 bg-white/95 px-4 py-3 backdrop-blur md:px-8">
            <GlobalSearch programId={programId} />
          </header>
          <main id="main" tabIndex={-1} className="px-4 py-6 focus:outline-none md:px-8">
            {children}
          </main>
        </div>
      </div>
    </Providers>
  );
}
