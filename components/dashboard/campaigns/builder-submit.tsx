import { FormError, buttonClass } from "@/components/ui";

/**
 * The end of a builder's form (campaigns, segments): the form's own error, the problems the server found in the
 * built body listed by path ("Not saved: 2 problems."), and the submit button, disabled while the write is on its
 * way. Which of the errors are listed is the builder's choice (its fields show the rest at their place).
 */
export function BuilderSubmit({
  errors,
  problems,
  pending,
  submit,
}: {
  errors: Record<string, string>;
  problems: [path: string, message: string][];
  pending: boolean;
  submit: string;
}) {
  return (
    <>
      <FormError error={errors.form} />
      {problems.length > 0 && (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          <p className="font-medium">
            Not saved: {problems.length === 1 ? "one problem" : `${problems.length} problems`}.
          </p>
          <ul className="mt-1 list-disc pl-5 font-mono text-xs">
            {problems.map(([path, message]) => (
              <li key={path}>
                {path} {message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <button type="submit" className={buttonClass} disabled={pending}>
        {submit}
      </button>
    </>
  );
}
