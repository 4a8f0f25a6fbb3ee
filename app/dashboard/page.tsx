import { redirect } from "next/navigation";
import { db } from "@/lib/db/client";
import { membershipsOf } from "@/lib/domain/staff";
import { sessionStaffId } from "@/lib/staff/session";
import { dashboardPages } from "@/lib/staff/urls";
import { SignOutButton } from "@/components/dashboard/sign-out-button";

export const metadata = { title: "Dashboard · Loyalty" };

/** The dashboard's entry: the first program the staff member belongs to. */
export default async function DashboardHome() {
  const staffId = await sessionStaffId();
  if (!staffId) redirect("/signin");
  const [first] = await membershipsOf(await db(), staffId);
  if (first) redirect(dashboardPages.program(first.programId));
  return (
    <main className="mx-auto max-w-md px-4 py-16">
      <h1 className="text-2xl font-bold">No program yet</h1>
      <p className="mt-2 text-slate-700">
        Your staff account is not a member of any program (or it was disabled). Ask a program owner to add you.
      </p>
      <div className="mt-6">
        <SignOutButton />
      </div>
    </main>
  );
}
