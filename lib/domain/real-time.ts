/**
 * Real time, for what is not a business time: staff sessions, sign-in throttling, api-key and customer-token
 * expiry, webhook secret overlaps, delivery scheduling; and a live program's clock (clock.ts), which is real time.
 * Security and operations times never follow a program's clock (clock.ts), and the
 * domain reads them only through here, so that a direct time read elsewhere in the domain stands out.
 */
export const realTime = (): Date => new Date();

/** Real time in milliseconds since the epoch. */
export const realTimeMs = (): number => Date.now();
