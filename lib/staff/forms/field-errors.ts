// First, as in every module here: lib/staff/client.ts reaches zod through this file alone, so without it a page whose
// form parses with a /v1 schema would let zod probe for eval under the CSP.
import "@/lib/zod-browser";
import type { z } from "zod";
import { zodProblems } from "@/lib/api/problem";

/**
 * The dashboard's form schemas live beside this file, one module per resource (as lib/api/schemas/ does for /v1).
 * Client components validate with them before sending (inline errors at once) and the route handlers validate
 * again on the server; where the /v1 API has the same input, its schema is reused, so a field accepted by one is
 * accepted by the other. Client-safe: zod only, no server imports; each imports lib/zod-browser.ts first.
 */

/** Field errors by path (`lastName`, `points`…), the same paths the server's problem+json `errors` use. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const p of zodProblems(error)) fields[p.path || "form"] ??= p.message;
  return fields;
}
