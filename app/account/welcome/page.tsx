import { Providers } from "@/components/providers";
import { WelcomeForm } from "@/components/account/welcome-form";

export const metadata = { title: "Choose your password · Loyalty" };

/** A one-time link's page (an owner's invitation or password reset): signed out, the token in the fragment. */
export default function WelcomePage() {
  return (
    <Providers>
      <main className="flex min-h-screen items-center justify-center px-4">
        <div className="w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
          <p className="text-sm font-semibold uppercase tracking-wide text-indigo-700">Loyalty</p>
          <h1 className="mt-1 text-2xl font-bold">Choose your password</h1>
          <p className="mt-1 text-sm text-slate-600">This link works once. Then sign in with your e-mail and it.</p>
          <WelcomeForm />
        </div>
      </main>
    </Providers>
  );
}
