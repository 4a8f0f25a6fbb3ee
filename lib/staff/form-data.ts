/**
 * The one place that reads a submitted form into a schema's input. Values are passed on as typed (NaN for junk
 * in a number field), so the zod schema, not this reader, reports what is wrong, by field.
 */
export function formValues(form: HTMLFormElement | FormData) {
  const data = form instanceof FormData ? form : new FormData(form);
  const raw = (name: string) => String(data.get(name) ?? "");
  return {
    /** The text as typed ("" when absent); the schema trims. */
    text: raw,
    /** The trimmed text, or null when empty. */
    optionalText: (name: string) => raw(name).trim() || null,
    number: (name: string) => Number(data.get(name)),
    /** null when empty, else the number typed. */
    optionalNumber: (name: string) => {
      const text = raw(name).trim();
      return text === "" ? null : Number(text);
    },
    /** A checkbox: true when ticked. */
    checked: (name: string) => data.get(name) === "on",
    /** Every value sent under one name (the ticked boxes of a group), in document order. */
    all: (name: string) => data.getAll(name).map(String),
  };
}

export type FormValues = ReturnType<typeof formValues>;
