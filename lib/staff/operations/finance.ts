import "server-only";
import { getPointValue, setPointValue } from "@/lib/domain/accounting";
import { auditedUpdate } from "../audit";
import { staffOperation } from "../authz";
import type { PointValueForm } from "../forms/finance";

/** The Finance page's "Value of a point" (managers and owners), audited. */
export const setPointValueAsStaff = staffOperation("program.manage", async (tx, staff, input: PointValueForm) => {
  const { after } = await auditedUpdate(
    tx,
    staff,
    "program.point_value",
    { type: "program", id: staff.programId },
    {
      read: () => getPointValue(tx, staff.programId),
      change: () =>
        setPointValue(
          tx,
          staff.programId,
          input.currency === null || input.pointValue === null
            ? null
            : { currency: input.currency, pointValue: input.pointValue },
        ),
    },
  );
  return after;
});
