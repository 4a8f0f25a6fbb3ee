import "server-only";
import { createProgramWithOwner, getProgram, updateProgram } from "@/lib/domain/programs";
import { createTestCopy } from "@/lib/domain/program-test-copy";
import { audited, auditedUpdate } from "../audit";
import { staffOperation } from "../authz";
import type { NewProgramForm, ProgramSettingsPatch } from "../forms/program";

/** The program settings page's writes: the settings (managers and owners) and a new program (owners). */

export const updateProgramSettingsAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, input: ProgramSettingsPatch, version?: string) => {
    const { after, version: next } = await auditedUpdate(
      tx,
      staff,
      "program.update",
      { type: "program", id: staff.programId },
      {
        read: () => getProgram(tx, staff.programId),
        change: () => updateProgram(tx, staff.programId, input),
        version: { of: "program", expected: version },
      },
    );
    return { ...after, version: next };
  },
);

/**
 * An owner of this program creates another one and becomes its owner. The audit row is written in the new
 * program's log (it is the new program's first event), naming who created it and from which program.
 */
export const createProgramAsStaff = staffOperation("programs.create", async (tx, staff, input: NewProgramForm) => {
  const created = await createProgramWithOwner(tx, staff.staffId, input);
  await audited(
    tx,
    { ...staff, programId: created.programId, programName: input.name, role: "owner" },
    "program.create",
    { type: "program", id: created.programId },
    null,
    { name: input.name, createdFrom: staff.programId },
  );
  return created;
});

/**
 * "Create a test copy": an owner or manager copies this program's configuration into a new test program (no
 * customers) and becomes its owner; audited in the new program's log, naming the program it was copied from.
 */
export const createTestCopyAsStaff = staffOperation("programs.test_copy", async (tx, staff, input: NewProgramForm) => {
  const created = await createTestCopy(tx, staff.staffId, staff.programId, input);
  await audited(
    tx,
    { ...staff, programId: created.programId, programName: input.name, role: "owner" },
    "program.create",
    { type: "program", id: created.programId },
    null,
    { name: input.name, createdFrom: staff.programId, test: true },
  );
  return created;
});
