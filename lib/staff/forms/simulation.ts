import "@/lib/zod-browser";
import { z } from "zod";
import { SIMULATION_MAX_DAYS } from "@/lib/domain/campaigns/simulate-limits";

/** A campaign simulation from the dashboard: the last `days` days of the program's clock (API.md "Simulations"). */
export const SimulationForm = z.strictObject({
  days: z
    .number("must be a whole number of days")
    .int("must be a whole number of days")
    .min(1, "must be at least 1")
    .max(SIMULATION_MAX_DAYS, `must be at most ${SIMULATION_MAX_DAYS}`),
});
export type SimulationForm = z.infer<typeof SimulationForm>;
