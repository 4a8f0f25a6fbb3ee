/**
 * Zod in the browser, under the pages' Content-Security-Policy (lib/staff/security-headers.ts): zod compiles object
 * parsers with `new Function` when it may, and probes that once; the CSP forbids eval, so the probe is reported as
 * a violation. In the browser zod is told not to try; servers keep the faster compiled parsers.
 * Imported first by each lib/staff/forms/<resource>.ts, through which every browser module reaches zod schemas.
 */
import { z } from "zod";

if (typeof window !== "undefined") z.config({ jitless: true });
