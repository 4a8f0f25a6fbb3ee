/**
 * The bounds of a balance explanation (lib/domain/balance-explained.ts), client-safe so the zod schema and the
 * dashboard can state them.
 */

/** The most open lots an explanation lists. */
export const MAX_LISTED_LOTS = 100;
/** The windows of `expiring`, in days from now (cumulative). */
export const EXPIRY_WINDOWS_DAYS = [30, 60, 90] as const;
/** The months `expiringByMonth` covers: the current one and the next eleven. */
export const EXPIRY_CHART_MONTHS = 12;
