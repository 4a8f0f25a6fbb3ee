/** The one place for the look of form controls: the labelled field and input, the error line and the button classes. */

/**
 * An input's look without its size. Tailwind has no "last class wins" within one class list (the stylesheet's order
 * decides, and `w-full` comes after `w-24` and `w-auto`, `py-2` after `py-1`), so a control that sets its own width or
 * height starts from this rather than adding to `inputClass`.
 */
export const inputLook =
  "block rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900 shadow-sm placeholder:text-slate-500 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200 disabled:bg-slate-100";
export const inputClass = `${inputLook} w-full py-2`;
export const buttonClass =
  "inline-flex items-center justify-center gap-1 rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400 focus-visible:ring-offset-1 disabled:cursor-not-allowed disabled:opacity-50";
export const secondaryButtonClass =
  "inline-flex items-center justify-center gap-1 rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium text-slate-800 shadow-sm hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400 disabled:opacity-50";
export const dangerButtonClass =
  "inline-flex items-center justify-center gap-1 rounded-md bg-red-700 px-3 py-2 text-sm font-medium text-white shadow-sm hover:bg-red-600 focus:outline-none focus-visible:ring-2 focus-visible:ring-red-400 disabled:opacity-50";
export const checkboxClass = "h-4 w-4 rounded border-slate-400 text-indigo-600 focus:ring-indigo-300";
/** An `InputField`'s attributes for a whole number (a phone shows digits); bounds are the field's own. */
export const wholeNumberInput = { type: "number", inputMode: "numeric", step: 1 } as const;

/** A field's error, announced (role="alert"); nothing when there is none. */
export function FieldError({ error, className }: { error?: string; className?: string }) {
  if (!error) return null;
  return (
    <p className={`${className ? `${className} ` : ""}text-xs font-medium text-red-700`} role="alert">
      {error}
    </p>
  );
}

/**
 * A refusal of the whole form (an expired session, a conflict that names no field), announced and shown above
 * the submit button, so it is seen where the staff member is looking; nothing when there is none.
 */
export function FormError({ error }: { error?: string }) {
  if (!error) return null;
  return (
    <p className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm font-medium text-red-800" role="alert">
      {error}
    </p>
  );
}

/** A labelled text or number input: a Field around an <input> with the shared look (`className` adds to it). */
export function InputField({
  label,
  error,
  hint,
  id,
  className,
  ...input
}: { label: string; error?: string; hint?: string; id: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field label={label} htmlFor={id} error={error} hint={hint}>
      <input id={id} className={className ? `${inputClass} ${className}` : inputClass} {...input} />
    </Field>
  );
}

export function Field({
  label,
  error,
  hint,
  children,
  htmlFor,
}: {
  label: string;
  error?: string;
  hint?: string;
  children: React.ReactNode;
  htmlFor: string;
}) {
  return (
    <div className="space-y-1">
      <label htmlFor={htmlFor} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      {children}
      {hint && !error && <p className="text-xs text-slate-600">{hint}</p>}
      <FieldError error={error} />
    </div>
  );
}
