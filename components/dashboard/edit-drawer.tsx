"use client";

import { useEffect, useRef, useState } from "react";
import { buttonClass, secondaryButtonClass } from "@/components/ui";

/**
 * The one place for "read view + edit" (Stripe-style): a button that opens a side drawer (a modal <dialog>: focus
 * moves into it, Escape closes it, the page behind is inert) holding an edit form. The form is mounted while the
 * drawer is open, so it starts from the saved values each time and keeps what was typed when the server refuses;
 * it calls `close` once saved.
 */
export function EditDrawer({
  title,
  button,
  buttonLabel,
  children,
}: {
  /** The drawer's heading, e.g. `Edit tier "Gold"`. */
  title: string;
  /** The button's visible text ("Edit"); `buttonLabel` is its accessible name when the text alone is ambiguous. */
  button: string;
  buttonLabel?: string;
  children: (close: () => void) => React.ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const close = () => setOpen(false);
  // The dialog follows `open` once React has rendered (or removed) the form inside it.
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <>
      <button type="button" className={secondaryButtonClass} aria-label={buttonLabel} onClick={() => setOpen(true)}>
        {button}
      </button>
      <dialog
        ref={ref}
        aria-label={title}
        onClose={() => setOpen(false)}
        className="fixed inset-y-0 left-auto right-0 m-0 h-full max-h-full w-full max-w-lg overflow-y-auto border-l border-slate-200 bg-white p-0 text-left shadow-xl backdrop:bg-slate-900/40"
      >
        {open && (
          <div className="space-y-4 p-5">
            <div className="flex items-start justify-between gap-3">
              <h2 className="text-lg font-semibold text-slate-900">{title}</h2>
              <button type="button" className={secondaryButtonClass} onClick={close}>
                Close
              </button>
            </div>
            {children(close)}
          </div>
        )}
      </dialog>
    </>
  );
}

/** A read view's fields: a definition list of label → value. */
export function DefinitionList({ items }: { items: [label: string, value: React.ReactNode][] }) {
  return (
    <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_1fr]">
      {items.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="font-medium text-slate-600">{label}</dt>
          <dd className="text-slate-900">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The one shape of a drawer's edit form (the settings' drawers): the form named after what it edits, its fields,
 * and the submit button, disabled while the write is on its way. `save` is the form's `useStaffForm`.
 */
export function DrawerForm({
  label,
  save,
  submit,
  children,
}: {
  label: string;
  save: {
    form: { ref: React.Ref<HTMLFormElement>; onSubmit: React.FormEventHandler<HTMLFormElement> };
    pending: boolean;
  };
  submit: string;
  children: React.ReactNode;
}) {
  return (
    <form {...save.form} aria-label={label} noValidate className="space-y-4">
      {children}
      <button type="submit" className={buttonClass} disabled={save.pending}>
        {submit}
      </button>
    </form>
  );
}
