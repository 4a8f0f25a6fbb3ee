import "server-only";
import { requireEarningFlow, setEarningFlowActive, updateEarningFlow } from "@/lib/domain/earning-flows";
import { auditedUpdate } from "../audit";
import { staffOperation } from "../authz";
import type { EarningFlowActive, EarningFlowEdit } from "../forms/earning-flows";

/** The staff edits of a program's earning flows (managers and owners), audited before → after. */

const read = (tx: Parameters<typeof requireEarningFlow>[0], programId: string, flowId: string) => async () => {
  const f = await requireEarningFlow(tx, programId, flowId);
  return {
    key: f.key,
    name: f.name,
    points: f.points,
    pointsPerUnit: f.pointsPerUnit,
    param: f.param,
    params: f.params,
    capPerDay: f.capPerDay,
    capTotal: f.capTotal,
    once: f.once,
    pendingDays: f.pendingDays,
    pending: f.pendingUntilConfirmed ? "until_confirmed" : null,
    active: f.active,
  };
};

export const updateEarningFlowAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, flowId: string, input: EarningFlowEdit, version?: string) => {
    const { after, version: next } = await auditedUpdate(
      tx,
      staff,
      "earning_flow.update",
      { type: "earning_flow", id: flowId },
      {
        read: read(tx, staff.programId, flowId),
        change: () => updateEarningFlow(tx, staff.programId, flowId, input),
        version: { of: "earning_flow", expected: version },
      },
    );
    return { earningFlowId: flowId, ...after, version: next };
  },
);

export const setEarningFlowActiveAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, flowId: string, input: EarningFlowActive, version?: string) => {
    const { after, version: next } = await auditedUpdate(
      tx,
      staff,
      input.active ? "earning_flow.activate" : "earning_flow.deactivate",
      { type: "earning_flow", id: flowId },
      {
        read: read(tx, staff.programId, flowId),
        change: () => setEarningFlowActive(tx, staff.programId, flowId, input.active),
        shown: (f) => ({ key: f.key, active: f.active }),
        version: { of: "earning_flow", expected: version },
      },
    );
    return { earningFlowId: flowId, key: after.key, active: after.active, version: next };
  },
);
