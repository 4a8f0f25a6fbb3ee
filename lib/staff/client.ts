"use client";

import { useMutation, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
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

/** The problem code of an edit made from a version someone else has changed since (lib/staff/versions.ts). */
export const STALE_EDIT = "stale_edit";

export async function staffFetch<T>(method: string, url: string, body?: unknown, version?: string): Promise<T> {
  const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
  if (version) headers["if-match"] = `"${version}"`;
  const res = await fetch(url, {
    method,
    headers,
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
  /**
   * The version of what the write edits, as the page loaded it (lib/staff/versions.ts): sent as If-Match, so a
   * save made from a page someone else has changed since is refused (409 `stale_edit`) and offers to reload.
   * After a save, the version the server answers replaces it until the page brings a newer one.
   */
  version?: string | Date;
}

export function useStaffWrite<S extends z.ZodType, T = unknown>(options: StaffWrite<S, T>) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<Record<string, string>>({});
  // The version answered by our own last save, kept while the page still gives the one it was made from.
  const [saved, setSaved] = useState<{ from: string | undefined; version: string } | null>(null);
  const given = options.version instanceof Date ? options.version.toISOString() : options.version;
  const version = saved && saved.from === given ? saved.version : given;
  const mutation = useMutation({
    mutationFn: (body: unknown) => staffFetch<T>(options.method, options.url, body, version),
    onSuccess: (data) => {
      setErrors({});
      const answered = (data as { version?: unknown } | null)?.version;
      if (given !== undefined && typeof answered === "string") setSaved({ from: given, version: answered });
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
      if (err instanceof StaffApiError && err.code === STALE_EDIT) {
        // Someone else saved first: nothing was changed; reloading shows their values (what is typed is lost).
        toast.error(err.message, {
          duration: Infinity,
          action: { label: "Reload", onClick: () => window.location.reload() },
        });
        return;
      }
      // A refusal shown at its field (a duplicate tier name, an earning-flow key in use) is not repeated in a toast.
      if (!field && Object.keys(fields).length > 0) return;
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
  return { submit, errors, pending: mutation.isPending, stale: errors.form !== undefined && isStale(mutation.error) };
}

const isStale = (error: unknown) => error instanceof StaffApiError && error.code === STALE_EDIT;

/** A form's input as a record of fields, or null when it is not one (then it is sent whole). */
const asRecord = (input: unknown): Record<string, unknown> | null =>
  input !== null && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : null;

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

/** A detached copy of the form reset to its default values (the value attributes the page rendered). */
function defaultsOf(form: HTMLFormElement): HTMLFormElement {
  const copy = form.cloneNode(true) as HTMLFormElement;
  copy.reset();
  return copy;
}

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
    /**
     * Send only the fields that differ from what the form showed when it opened (or after its last save): the
     * default for a PATCH that carries a version. A form whose endpoint replaces the whole thing says false.
     */
    changedOnly?: boolean;
    values?: { [K in FieldName<S>]?: unknown };
  },
) {
  const ref = useRef<HTMLFormElement>(null);
  const clear = options.clear ?? "saved";
  const changedOnly = options.changedOnly ?? (options.method === "PATCH" && options.version !== undefined);
  // What the form showed when it opened (read the same way as a submit), and after each save.
  const shown = useRef<Record<string, unknown> | null>(null);
  const { read } = options;
  const version = options.version instanceof Date ? options.version.toISOString() : options.version;
  useEffect(() => {
    // The fields' default values (the page's), not their current ones: what was typed before the page hydrated is a
    // change to send, not what the form showed (read as shown, a quick user's first save was "nothing to save").
    if (ref.current) shown.current = asRecord(read(formValues(defaultsOf(ref.current))));
    // The page's new version (after a reload or a refresh) is what the form shows from now on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [version]);
  const sent = useRef<Record<string, unknown> | null>(null);
  const write = useStaffWrite<S, T>({
    ...options,
    onSuccess: (data) => {
      if (clear === "saved") ref.current?.reset();
      if (sent.current && shown.current) shown.current = { ...shown.current, ...sent.current };
      options.onSuccess?.(data);
    },
  });
  const onSubmit = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const input = options.read(formValues(event.currentTarget));
    const all = asRecord(input);
    if (!changedOnly || !all || !shown.current) {
      sent.current = null;
      write.submit(input);
      return;
    }
    const before = shown.current;
    const changed = Object.fromEntries(
      Object.entries(all).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before[k])),
    );
    if (Object.keys(changed).length === 0) {
      toast.info("Nothing to save: no field was changed.");
      return;
    }
    // The whole input is checked in the browser (the same errors as ever); only what changed is sent.
    if (options.schema && !options.schema.safeParse(input).success) {
      write.submit(input);
      return;
    }
    sent.current = changed;
    write.submit(changed as z.input<S>);
  };
  const field = (name: FieldName<S>): BoundField => ({
    name,
    error: write.errors[name],
    ...(options.values ? { defaultValue: startingValue(options.values[name]) } : {}),
  });
  return { ...write, form: { ref, onSubmit }, field };
}
