import { redirect } from "next/navigation";
import { SignInForm } from "@/components/dashboard/sign-in-form";
import { sessionStaffId } from "@/lib/staff/session";

export const metadata = { title: "Sign in · Loyalty" };

export default async function SignInPage() {
  if (await sessionStaffId()) redirect("/dashboard");
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <p className="text-sm font-semibold uppercase tracking-wide text-indigo-700">Loyalty</p>
        <h1 className="mt-1 text-2xl font-bold">Staff sign-in</h1>
        <p className="mt-1 text-sm text-slate-600">Program managers and support staff.</p>
        <SignInForm />
      </div>
    </main>
  );
}
