import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import pino, { type Logger } from "pino";
import { config } from "@/lib/config";

/**
 * The one logger of the server, its jobs and the outbox: one JSON object per line on stdout (pino), with `time`
 * (ISO 8601), `level` as a word, `msg`, and the `requestId` of the request being served on every line written while
 * it runs (the edge opens a request context with `withRequestContext`; AsyncLocalStorage carries it through awaits).
 * Stack traces go to the log only, never into a response. LOG_LEVEL sets the threshold.
 */

export interface RequestContext {
  requestId: string;
}

// On globalThis: Next may load this module in more than one bundle; every copy must see the same context.
const holder = globalThis as unknown as { __loyaltyLog?: { context: AsyncLocalStorage<RequestContext>; log?: Logger } };
const state = (holder.__loyaltyLog ??= { context: new AsyncLocalStorage<RequestContext>() });

/** Runs `work` with `context` attached to every log line written until it settles. */
export const withRequestContext = <T>(context: RequestContext, work: () => T): T => state.context.run(context, work);

/** How long a line may wait in the buffer before it is written. */
const FLUSH_MS = 200;

/**
 * The process's logger, created on first use (LOG_LEVEL is read then). Lines are buffered and written together
 * (at 4 KiB, every FLUSH_MS, and synchronously when the process exits, pino's own exit hook): one write(2) per line
 * cost a busy server more than any other single step of a request (bench/profile.ts).
 */
export function log(): Logger {
  if (state.log) return state.log;
  const destination = pino.destination({ dest: 1, minLength: 4096, sync: false });
  setInterval(() => destination.flush(), FLUSH_MS).unref();
  return (state.log = pino(
    {
      level: config().LOG_LEVEL,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const context = state.context.getStore();
        return context ? { requestId: context.requestId } : {};
      },
    },
    destination,
  ));
}

/** An error as log fields: its message on one line, and its stack (logs only). */
export function errorFields(err: unknown): { error: string; stack?: string } {
  const e = err as Error | undefined;
  return { error: String(e?.message ?? err), ...(e?.stack ? { stack: e.stack } : {}) };
}
