"use client";

import clsx from "clsx";
import Link, { useLinkStatus } from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { dashboardPages } from "@/lib/staff/urls";
import { SignOutButton } from "./sign-out-button";

interface Props {
  links: { href: string; label: string }[];
  programs: { id: string; name: string; role: string }[];
  current: string;
  staffEmail: string;
  role: string;
}

const darkButtonClass =
  "rounded-md border border-slate-500 px-3 py-1.5 text-sm text-slate-100 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400";

/**
 * A dot beside a link while the page it opens is loading: dashboard pages render whole on the server before they
 * answer (so not-found and forbidden carry their real status), so this is the feedback while one loads.
 */
function Pending() {
  const { pending } = useLinkStatus();
  return pending ? (
    <span role="status" className="ml-2 inline-block h-2 w-2 animate-pulse rounded-full bg-indigo-300 align-middle">
      <span className="sr-only">Loading…</span>
    </span>
  ) : null;
}

/** Navigation, the program switcher (when the staff member has several programs), who is signed in, sign-out. */
export function Sidebar({ links, programs, current, staffEmail, role }: Props) {
  const pathname = usePathname();
  const router = useRouter();
  const home = dashboardPages.program(current);
  const active = (href: string) =>
    href === home ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
  const program = programs.find((p) => p.id === current);
  return (
    <aside className="bg-slate-900 text-slate-100 md:w-60 md:shrink-0">
      <div className="flex flex-col gap-3 p-3 md:sticky md:top-0 md:h-screen md:gap-4 md:overflow-y-auto md:p-4">
        <div className="flex items-center justify-between gap-3 md:block">
          <div className="min-w-0 flex-1">
            <p className="text-xs font-semibold uppercase tracking-wider text-indigo-300">Loyalty</p>
            {programs.length > 1 ? (
              <>
                <label htmlFor="program" className="sr-only">
                  Program
                </label>
                <select
                  id="program"
                  value={current}
                  onChange={(e) => router.push(dashboardPages.program(e.target.value))}
                  className="mt-1 w-full rounded-md border border-slate-600 bg-slate-800 px-2 py-1.5 text-sm text-white focus:outline-none focus:ring-2 focus:ring-indigo-400"
                >
                  {programs.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.name} ({p.role})
                    </option>
                  ))}
                </select>
              </>
            ) : (
              <p className="mt-1 truncate text-sm font-semibold text-white">{program?.name}</p>
            )}
          </div>
          <SignOutButton className={`${darkButtonClass} shrink-0 md:hidden`} />
        </div>
        <nav
          aria-label="Dashboard"
          className="-mx-1 flex gap-1 overflow-x-auto px-1 md:mx-0 md:flex-col md:overflow-visible md:px-0"
        >
          {links.map((l) => (
            <Link
              key={l.href}
              href={l.href}
              aria-current={active(l.href) ? "page" : undefined}
              className={clsx(
                "whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400",
                active(l.href) ? "bg-slate-700 text-white" : "text-slate-200 hover:bg-slate-800",
              )}
            >
              {l.label}
              <Pending />
            </Link>
          ))}
        </nav>
        <div className="mt-auto hidden border-t border-slate-700 pt-4 text-sm md:block">
          <p className="truncate text-slate-200" title={staffEmail}>
            {staffEmail}
          </p>
          <p className="text-xs capitalize text-slate-300">{role}</p>
          <Link href="/account" className="mt-2 block text-xs text-indigo-200 underline hover:text-white">
            Your account: password, second factor
          </Link>
          <SignOutButton className={`${darkButtonClass} mt-3 w-full`} />
        </div>
      </div>
    </aside>
  );
}
