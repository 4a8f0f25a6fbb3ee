"use client";

import { useMutation, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { toast } from "sonner";
import type { z } from "zod";
import { formValues, type FormValues } from "./form-data";
import { fieldErrors } from "./forms/field-errors";

/** A problem+json answer from /api/staff, with the field errors by path for inline display. */
export class StaffApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly fields: Record<string, string>,
  ) {
    super(message);
  }
}

export async function staffFetch<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: { detail?: string; code?: string; errors?: { path: string; message: string }[] } | null = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (a proxy's error page): reported by status below
  }
  if (!res.ok) {
    const fields: Record<string, string> = {};
    for (const e of json?.errors ?? []) {
      fields[e.path] ??= e.message;
      // A path into the domain's own input ("[0].payload.email" for a batch of one) also names the form's field.
      const leaf = e.path
        .split(/[.[\]]+/)
        .filter(Boolean)
        .at(-1);
      if (leaf && !/^\d+$/.test(leaf)) fields[leaf] ??= e.message;
    }
    const message =
      res.status === 401
        ? "Your session has ended: sign in again."
        : (json?.detail ?? `Request failed (${res.status})`);
    throw new StaffApiError(message, res.status, json?.code ?? "error", fields);
  }
  return json as T;
}

/**
 * One dashboard write from a form: validates `input` with the form's zod schema in the browser (inline errors,
 * nothing sent), sends it, shows the server's field errors inline and its message as a toast, and on success
 * toasts, invalidates the listed react-query caches and refreshes the server-rendered page.
 */
export interface StaffWrite<S extends z.ZodType, T> {
  schema?: S;
  method: "POST" | "PATCH" | "PUT" | "DELETE";
  url: string;
  success: string | ((data: T) => string);
  invalidate?: QueryKey[];
  onSuccess?: (data: T) => void;
  /**
   * Refusals without a field path that belong to one field, by problem code (`insufficient_balance: "points"`):
   * their message shows at that field. Any other refusal shows as the form's error (`errors.form`) and a toast.
   */
  codeFields?: Record<string, string>;
}

export function useStaffWrite<S extends z.ZodType, T = unknown>(options: StaffWrite<S, T>) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const mutation = useMutation({
    mutationFn: (body: unknown) => staffFetch<T>(options.method, options.url, body),
    onSuccess: (data) => {
      setErrors({});
      toast.success(typeof options.success === "function" ? options.success(data) : options.success);
      for (const queryKey of options.invalidate ?? []) void queryClient.invalidateQueries({ queryKey });
      options.onSuccess?.(data);
      router.refresh();
    },
    // The form keeps what was typed (nothing resets it on a refusal): the staff member corrects and resends.
    onError: (err) => {
      const field = err instanceof StaffApiError ? options.codeFields?.[err.code] : undefined;
      const fields = err instanceof StaffApiError ? err.fields : {};
      setErrors(
        field ? { ...fields, [field]: err.message } : Object.keys(fields).length > 0 ? fields : { form: err.message },
      );
      toast.error(err.message);
    },
  });
  /** Returns false (and shows the errors) when the input does not pass the schema. */
  const submit = (input?: z.input<S>): boolean => {
    if (options.schema) {
      const parsed = options.schema.safeParse(input);
      if (!parsed.success) {
        setErrors(fieldErrors(parsed.error));
        return false;
      }
    }
    setErrors({});
    // The raw input is sent: the server applies the same schema (trimming, lower-casing) itself.
    mutation.mutate(input);
    return true;
  };
  return { submit, errors, pending: mutation.isPending };
}

/** A field of the schema's input, by the name the form submits it under. */
type FieldName<S extends z.ZodType> = Extract<keyof z.input<S>, string>;

/** What an input needs of its field: the name it submits, the saved value it starts from, the error it shows. */
export interface BoundField {
  name: string;
  defaultValue?: string | number;
  error?: string;
}

/** A saved value as an input's starting text: nothing (null, undefined) is an empty input. */
const startingValue = (value: unknown): string | number =>
  value === null || value === undefined ? "" : typeof value === "number" ? value : String(value);

/**
 * A form that makes one write: `read` turns the submitted form into the schema's input. `clear` says whether the
 * form empties once the server has saved the write ("saved", the default) or never (its fields show the saved
 * values). It never empties before the server has answered, nor when the server refuses (a 409, an expired
 * session, a 400): the input stays for the staff member to correct and send again. Spread `form` on the <form>,
 * and `field(name)` on each input: its name, its starting value (from `values`, an edit form's saved values) and
 * its error, so a field is named once.
 */
export function useStaffForm<S extends z.ZodType, T = unknown>(
  options: StaffWrite<S, T> & {
    read: (form: FormValues) => z.input<S>;
    clear?: "saved" | "never";
    values?: { [K in FieldName<S>]?: unknown };
  },
) {
  const ref = useRef<HTMLFormElement>(null);
  const clear = options.clear ?? "saved";
  const write = useStaffWrite<S, T>({
    ...options,
    onSuccess: (data) => {
      if (clear === "saved") ref.current?.reset();
      options.onSuccess?.(data);
    },
  });
  const onSubmit = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    write.submit(options.read(formValues(event.currentTarget)));
  };
  const field = (name: FieldName<S>): BoundField => ({
    name,
    error: write.errors[name],
    ...(options.values ? { defaultValue: startingValue(options.values[name]) } : {}),
  });
  return { ...write, form: { ref, onSubmit }, field };
}
