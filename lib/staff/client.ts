"use client";

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
  const json = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const fields: Record<string, string> = {};
    for (const e of json?.errors ?? []) fields[e.path] ??= e.message;
    throw new StaffApiError(json?.detail ?? `Request failed (${res.status})`, res.status, json?.code ?? "error", fields);
  }
  return json as T;
}
