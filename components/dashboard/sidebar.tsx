"use client";

import clsx from "clsx";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { signOut } from "next-auth/react";

interface Props {
  links: { href: string; label: string }[];
  programs: { id: string; name: string; role: string }[];
  current: string;
  staffEmail: string;
  role: string;
}

export function Sidebar({ links, programs, current, staffEmail, role }: Props) {
  const pathname = usePathname();
  const router = useRouter();
  const active = (href: string) => (href === `/dashboard/${current}` ? pathname === href : pathname.startsWith(href));
  return (
    <aside className="border-b border-slate-800 bg-slate-900 text-slate-100 md:sticky md:top-0 md:h-screen md:w-60 md:shrink-0 md:border-b-0 md:border-r">
      <div className="flex flex-col gap-4 p-4 md:h-full">
        <div>
          <p className="text-xs font-semibold uppercase tracking-wider text-indigo-300">Loyalty</p>
          <label htmlFor="program" className="sr-only">
            Program
          </label>
          <select
            id="program"
            value={current}
            onChange={(e) => router.push(`/dashboard/${e.target.value}`)}
            className="mt-2 w-full rounded-md border border-slate-700 bg-slate-800 px-2 py-1.5 text-sm text-white focus:outline-none focus:ring-2 focus:ring-indigo-400"
          >
            {programs.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        <nav aria-label="Dashboard" className="flex gap-1 overflow-x-auto md:flex-col">
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
            </Link>
          ))}
        </nav>
        <div className="mt-auto hidden border-t border-slate-700 pt-4 text-sm md:block">
          <p className="truncate text-slate-200" title={staffEmail}>
            {staffEmail}
          </p>
          <p className="text-xs capitalize text-slate-300">{role}</p>
        </div>
        <button
          type="button"
          onClick={() => signOut({ callbackUrl: "/signin" })}
          className="rounded-md border border-slate-600 px-3 py-1.5 text-sm text-slate-100 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400"
        >
          Sign out
        </button>
      </div>
    </aside>
  );
}
