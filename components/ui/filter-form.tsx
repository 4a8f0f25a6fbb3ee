import clsx from "clsx";
import Link from "next/link";
import { buttonClass, inputClass, secondaryButtonClass } from "./field";

/**
 * The one place for a list's filter bar: a GET form (the filters become the page's query string, so a filtered
 * list can be bookmarked), its submit button and, while a filter is on, a link that clears them.
 */
export function FilterForm({
  label,
  role,
  submit = "Filter",
  filtered = false,
  className,
  children,
}: {
  label?: string;
  role?: "search";
  submit?: string;
  /** Whether a filter is on: shows "Clear". */
  filtered?: boolean;
  className?: string;
  children: React.ReactNode;
}) {
  return (
    <form className={clsx("flex flex-wrap items-end gap-3", className)} aria-label={label} role={role}>
      {children}
      <button className={buttonClass} type="submit">
        {submit}
      </button>
      {filtered && (
        <Link href="?" className={secondaryButtonClass}>
          Clear
        </Link>
      )}
    </form>
  );
}

/** A labelled <select> of a filter bar; `all` names the first option, "", which means "no filter". */
export function FilterSelect({
  name,
  label,
  value,
  all,
  children,
}: {
  name: string;
  label: string;
  value: string;
  all?: string;
  children: React.ReactNode;
}) {
  return (
    <div>
      <label htmlFor={name} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <select id={name} name={name} defaultValue={value} className={inputClass}>
        {all !== undefined && <option value="">{all}</option>}
        {children}
      </select>
    </div>
  );
}

/** A labelled <input> of a filter bar (text, date with its `min`/`max`). */
export function FilterInput({
  name,
  label,
  value,
  type = "text",
  min,
  max,
  placeholder,
}: {
  name: string;
  label: string;
  value: string;
  type?: "text" | "date";
  min?: string;
  max?: string;
  placeholder?: string;
}) {
  return (
    <div>
      <label htmlFor={name} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <input
        id={name}
        name={name}
        type={type}
        defaultValue={value}
        min={min}
        max={max}
        placeholder={placeholder}
        className={inputClass}
      />
    </div>
  );
}
