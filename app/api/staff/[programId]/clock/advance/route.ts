import { staffWrite } from "@/lib/staff/http";
import { ClockAdvanceForm } from "@/lib/staff/forms/clock";
import { ADVANCE_TRANSACTION, advanceClockAsStaff } from "@/lib/staff/operations/clock";

/** Advances a test program's clock (managers and owners; audited; a repeated `requestId` replays); 200. */
export const POST = staffWrite(advanceClockAsStaff, {
  body: ClockAdvanceForm,
  args: (req) => [req.body],
  transaction: ADVANCE_TRANSACTION,
});
