"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useId, useState } from "react";
import { staffFetch } from "@/lib/staff/client";
import type { CustomerRow, MatchKind } from "@/lib/staff/queries/customers/search";
import { dashboardPages, queryKeys, staffApi } from "@/lib/staff/urls";
import { formatNumber } from "@/components/ui";

/** How a result matched, in words (lib/staff/queries/customers/search.ts MATCH_RANKS). */
const MATCH_LABELS: Record<MatchKind, string> = {
  email_exact: "e-mail",
  external_id_exact: "external id",
  phone_exact: "phone",
  name_exact: "name",
  email_prefix: "e-mail starts with",
  phone_prefix: "phone starts with",
  name_prefix: "name starts with",
  email_substring: "e-mail contains",
  phone_suffix: "phone ends with",
  name_substring: "name contains",
};

/**
 * Finds customers as you type (debounced, case-insensitive) by e-mail (exact, start, any part), name, phone
 * digits or external id, best matches first. A WAI-ARIA combobox: ↓/↑ move through the results, Enter opens one,
 * Escape closes the list; "/" anywhere focuses the box.
 */
export function GlobalSearch({ programId }: { programId: string }) {
  const router = useRouter();
  const listId = useId();
  const [text, setText] = useState("");
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(-1);
  const [open, setOpen] = useState(false);

  useEffect(() => {
    const t = setTimeout(() => setQuery(text.trim()), 200);
    return () => clearTimeout(t);
  }, [text]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.key !== "/" || target?.closest("input, textarea, select, [contenteditable]")) return;
      e.preventDefault();
      document.getElementById("global-search")?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const { data, isFetching, isError, isPlaceholderData } = useQuery({
    queryKey: queryKeys.search(programId, query),
    queryFn: () => staffFetch<{ data: CustomerRow[] }>("GET", staffApi.search(programId, query)),
    enabled: query.length > 0,
    placeholderData: (previous) => previous,
  });
  const results = query.length > 0 ? (data?.data ?? []) : [];
  // The previous query's rows stay shown while the new one is typed or fetched, but not its match labels ("name",
  // "phone"), which would describe a text that is no longer in the box.
  const fresh = !isPlaceholderData && query === text.trim();
  const expanded = open && query.length > 0;
  const optionId = (i: number) => `${listId}-option-${i}`;

  const go = (row: CustomerRow) => {
    setOpen(false);
    setText("");
    setActive(-1);
    router.push(dashboardPages.customer(programId, row.id));
  };

  return (
    <div className="relative w-full max-w-xl">
      {/* A short name: field labels elsewhere on the page ("Name", "Phone") must stay unique to their field. */}
      <label htmlFor="global-search" className="sr-only">
        Find a customer
      </label>
      <p id="global-search-hint" className="sr-only">
        By e-mail, name, phone or external id. Press slash to come back here.
      </p>
      <input
        id="global-search"
        type="search"
        role="combobox"
        aria-expanded={expanded && results.length > 0}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-describedby="global-search-hint"
        aria-activedescendant={expanded && active >= 0 && results[active] ? optionId(active) : undefined}
        autoComplete="off"
        spellCheck={false}
        placeholder="Find a customer: e-mail, name, phone, id…  ( / )"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") {
            setOpen(true);
            setActive((a) => Math.min(a + 1, results.length - 1));
          } else if (e.key === "ArrowUp") setActive((a) => Math.max(a - 1, 0));
          else if (e.key === "Enter" && results.length > 0) go(results[Math.max(active, 0)]!);
          else if (e.key === "Escape") {
            if (!expanded) setText("");
            setOpen(false);
          } else return;
          e.preventDefault();
        }}
        className="w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm placeholder:text-slate-500 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200"
      />
      <ul
        id={listId}
        role="listbox"
        aria-label="Customers found"
        hidden={!expanded || results.length === 0}
        className="absolute z-20 mt-1 max-h-96 w-full overflow-y-auto rounded-md border border-slate-200 bg-white py-1 shadow-lg"
      >
        {results.map((row, i) => (
          <li
            key={row.id}
            id={optionId(i)}
            role="option"
            aria-selected={i === active}
            onMouseDown={(e) => {
              e.preventDefault();
              go(row);
            }}
            onMouseEnter={() => setActive(i)}
            className={`cursor-pointer px-3 py-2 text-sm ${i === active ? "bg-indigo-50" : ""}`}
          >
            <span className="block truncate font-medium text-slate-900">{row.email}</span>
            <span className="block truncate text-xs text-slate-600">
              {[row.firstName, row.lastName].filter(Boolean).join(" ") || "No name"} · {row.tier ?? "no tier"} ·{" "}
              {formatNumber(row.balance)} pts
              {row.match && fresh ? ` · ${MATCH_LABELS[row.match]}` : ""}
            </span>
          </li>
        ))}
      </ul>
      <p className="sr-only" aria-live="polite">
        {expanded
          ? isError
            ? "Search failed."
            : isFetching && results.length === 0
              ? "Searching…"
              : `${results.length} customers found.`
          : ""}
      </p>
      {expanded && results.length === 0 && (
        <p className="absolute z-20 mt-1 w-full rounded-md border border-slate-200 bg-white px-3 py-2 text-sm text-slate-600 shadow-lg">
          {isError
            ? "Search failed: try again."
            : isFetching || query !== text.trim()
              ? "Searching…"
              : "No customer matches that e-mail, name, phone or id."}
        </p>
      )}
    </div>
  );
}
