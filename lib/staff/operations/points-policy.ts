import "server-only";
import { getPointsPolicy, updatePointsPolicy } from "@/lib/domain/points-policy";
import { auditedUpdate } from "../audit";
import { staffOperation } from "../authz";
import type { PointsPolicyForm } from "../forms/program";

/** The settings page's "Points: pending and expiry" card (managers and owners), audited. */
export const updatePointsPolicyAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, input: PointsPolicyForm, version?: string) => {
    const { after, version: next } = await auditedUpdate(
      tx,
      staff,
      "program.points_policy_update",
      { type: "program", id: staff.programId },
      {
        read: () => getPointsPolicy(tx, staff.programId),
        change: () => updatePointsPolicy(tx, staff.programId, input),
        version: { of: "program", expected: version },
      },
    );
    return { ...after, version: next };
  },
);
