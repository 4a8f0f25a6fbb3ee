/** The limits of a simulation (simulate.ts), client-safe: the longest window, the most events, the customers listed. */
export const SIMULATION_MAX_DAYS = 366;
export const SIMULATION_MAX_EVENTS = 1_000_000;
export const SIMULATION_SAMPLE = 20;
