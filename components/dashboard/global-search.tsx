"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useId, useState } from "react";
import { staffFetch } from "@/lib/staff/client";
import type { CustomerRow } from "@/lib/staff/queries";

/** Finds customers by the start of their e-mail as you type; arrow keys and Enter open one. */
export function GlobalSearch({ programId }: { programId: string }) {
  const router = useRouter();
  const listId = useId();
  const [text, setText] = useState("");
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const [open, setOpen] = useState(false);

  useEffect(() => {
    const t = setTimeout(() => setQuery(text.trim().toLowerCase()), 150);
    return () => clearTimeout(t);
  }, [text]);

  const { data, isFetching } = useQuery({
    queryKey: ["search", programId, query],
    queryFn: () => staffFetch<{ data: CustomerRow[] }>("GET", `/api/staff/${programId}/search?q=${encodeURIComponent(query)}`),
    enabled: query.length >= 2,
  });
  const results = query.length >= 2 ? (data?.data ?? []) : [];

  const go = (row: CustomerRow) => {
    setOpen(false);
    setText("");
    router.push(`/dashboard/${programId}/customers/${row.id}`);
  };

  return (
    <div className="relative max-w-xl">
      <label htmlFor="global-search" className="sr-only">
        Find a customer by e-mail
      </label>
      <input
        id="global-search"
        type="search"
        role="combobox"
        aria-expanded={open && results.length > 0}
        aria-controls={listId}
        aria-autocomplete="list"
        autoComplete="off"
        placeholder="Find a customer by e-mail…"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
          setActive(0);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") setActive((a) => Math.min(a + 1, results.length - 1));
          else if (e.key === "ArrowUp") setActive((a) => Math.max(a - 1, 0));
          else if (e.key === "Enter" && results[active]) go(results[active]!);
          else if (e.key === "Escape") setOpen(false);
          else return;
          e.preventDefault();
        }}
        className="w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200"
      />
      {open && query.length >= 2 && (
        <ul id={listId} role="listbox" className="absolute z-20 mt-1 w-full overflow-hidden rounded-md border border-slate-200 bg-white shadow-lg">
          {results.length === 0 && <li className="px-3 py-2 text-sm text-slate-600">{isFetching ? "Searching…" : "No customer with that e-mail."}</li>}
          {results.map((row, i) => (
            <li
              key={row.id}
              role="option"
              aria-selected={i === active}
              onMouseDown={() => go(row)}
              className={`cursor-pointer px-3 py-2 text-sm ${i === active ? "bg-indigo-50" : ""}`}
            >
              <span className="font-medium text-slate-900">{row.email}</span>
              <span className="ml-2 text-slate-600">
                {[row.firstName, row.lastName].filter(Boolean).join(" ")} · {row.tier ?? "no tier"} · {row.balance} pts
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
