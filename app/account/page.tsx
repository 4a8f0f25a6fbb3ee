import Link from "next/link";
import { redirect } from "next/navigation";
import { accountPage } from "@/lib/staff/account";
import { sessionStaffId } from "@/lib/staff/session";
import { dashboardPages } from "@/lib/staff/urls";
import { Badge, Card } from "@/components/ui";
import { Providers } from "@/components/providers";
import { PasswordForm } from "@/components/account/password-form";
import { SecondFactor } from "@/components/account/second-factor";
import { SignOutButton } from "@/components/dashboard/sign-out-button";

export const metadata = { title: "Your account · Loyalty" };

/** The signed-in staff member's own account: programs, password, second factor (lib/staff/account.ts). */
export default async function AccountPage({ searchParams }: { searchParams: Promise<{ required?: string }> }) {
  const staffId = await sessionStaffId();
  if (!staffId) redirect("/signin");
  const account = await accountPage(staffId);
  const { required } = await searchParams;
  const blocked = account.programs.find((p) => p.id === required && p.requiresSecondFactor);
  return (
    <Providers>
      <main id="main" className="mx-auto max-w-3xl space-y-4 px-4 py-8">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h1 className="text-2xl font-bold">Your account</h1>
          <SignOutButton />
        </div>
        <p className="text-sm text-slate-700">
          {account.email}
          {account.name ? ` (${account.name})` : ""}.{" "}
          {account.lastSignInAt
            ? `Last sign-in ${account.lastSignInAt.toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" })} UTC.`
            : ""}
        </p>
        {blocked && !account.totpEnabledAt && (
          <p className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950" role="alert">
            {blocked.name} requires a second factor: set one up below to open it.
          </p>
        )}
        <Card title="Your programs">
          <ul className="space-y-1 text-sm">
            {account.programs.map((p) => (
              <li key={p.id} className="flex flex-wrap items-center gap-2">
                <Link className="text-indigo-700 underline" href={dashboardPages.program(p.id)}>
                  {p.name}
                </Link>
                <span className="capitalize text-slate-600">{p.role}</span>
                {p.requiresSecondFactor && <Badge tone="amber">requires a second factor</Badge>}
              </li>
            ))}
          </ul>
        </Card>
        <SecondFactor
          enabledAt={account.totpEnabledAt}
          pending={account.pending}
          codesLeft={account.recoveryCodesLeft}
          required={account.programs.filter((p) => p.requiresSecondFactor).map((p) => p.name)}
        />
        <PasswordForm />
      </main>
    </Providers>
  );
}
