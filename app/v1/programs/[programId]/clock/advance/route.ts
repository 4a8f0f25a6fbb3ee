import { apiWrite } from "@/lib/api/route-factories";
import { AdvanceRequest } from "@/lib/api/schemas/clock";
import { advanceClockInTransactionRecorded, advanceClockRecorded } from "@/lib/domain/clock-advances";

/**
 * Moves a test program's clock forward, running every timer due on the way in time order (lib/domain/program-clock.ts).
 * Without an Idempotency-Key (and for every dry run) the advance runs outside the write's transaction (`statement`),
 * each due instant its own transaction, so a repeat after a cut continues from the clock. With a key it runs in the
 * write's one transaction, with its stored outcome (`run`), so a repeat with that key replays it. An applied advance's
 * report is stored for the dashboard's clock page (lib/domain/clock-advances.ts). 200.
 */
export const POST = apiWrite({
  body: AdvanceRequest,
  statement: async (req, database, slot) => {
    if (slot && !req.body.dryRun) return null;
    const report = await advanceClockRecorded(database.prisma, req.programId, {
      to: new Date(req.body.to),
      dryRun: req.body.dryRun,
    });
    return { status: 200, body: JSON.stringify(report), replayed: false };
  },
  run: async (req, tx) => ({
    status: 200,
    json: await advanceClockInTransactionRecorded(tx, req.programId, new Date(req.body.to)),
  }),
});
