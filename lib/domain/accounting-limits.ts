/** The longest points accounting report, in days: two years (client-safe; lib/domain/accounting.ts). */
export const MAX_ACCOUNTING_DAYS = 731;
