import { apiWrite } from "@/lib/api/route-factories";
import { AdvanceRequest } from "@/lib/api/schemas/clock";
import { advanceClock } from "@/lib/domain/program-clock";

/**
 * Moves a test program's clock forward, running every timer due on the way in time order, each step its own
 * transaction (lib/domain/program-clock.ts), so the advance runs outside the write's transaction (`statement`). No
 * Idempotency-Key is stored: repeating an advance is safe by design (it continues from the clock). 200.
 */
export const POST = apiWrite({
  body: AdvanceRequest,
  statement: async (req, prisma) => {
    const report = await advanceClock(prisma, req.programId, { to: new Date(req.body.to), dryRun: req.body.dryRun });
    return { status: 200, body: JSON.stringify(report), replayed: false };
  },
  // Never reached (the statement always answers); the factory requires it.
  run: async () => {
    throw new Error("the clock advance answers from its statement");
  },
});
