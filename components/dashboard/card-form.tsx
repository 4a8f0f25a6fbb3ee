import { Card, buttonClass } from "@/components/ui";

/**
 * The one place for a page's "New …" card: a card holding one form named after it, its fields laid out by
 * `className`, and the submit button, disabled while the write is on its way. `submitIn` puts the button in a
 * grid cell of that class (a whole row: "sm:col-span-2 lg:col-span-4"); without it the button sits in the flow.
 */
export function CardForm({
  title,
  form,
  pending,
  submit,
  submitIn,
  submitClassName,
  noValidate,
  className,
  children,
  footer,
}: {
  title: string;
  form: { ref: React.Ref<HTMLFormElement>; onSubmit: React.FormEventHandler<HTMLFormElement> };
  pending: boolean;
  submit: string;
  submitIn?: string;
  submitClassName?: string;
  noValidate?: boolean;
  className: string;
  children: React.ReactNode;
  /** Below the form: a hint, or what the write returned (a secret shown once). */
  footer?: React.ReactNode;
}) {
  const button = (
    <button
      className={submitClassName ? `${buttonClass} ${submitClassName}` : buttonClass}
      type="submit"
      disabled={pending}
    >
      {submit}
    </button>
  );
  return (
    <Card title={title}>
      <form {...form} aria-label={title} noValidate={noValidate} className={className}>
        {children}
        {submitIn === undefined ? button : <div className={submitIn || undefined}>{button}</div>}
      </form>
      {footer}
    </Card>
  );
}
