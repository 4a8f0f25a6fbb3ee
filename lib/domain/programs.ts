import type { Db } from "@/lib/db/types";
import { notFound } from "@/lib/errors";
import type { AdjustCeilings } from "./adjustment-ceilings";

export async function createProgram(db: Db, input: { name: string; tierPeriodMonths?: number }): Promise<{ programId: string }> {
  const program = await db.program.create({
    data: { name: input.name, tierPeriodMonths: input.tierPeriodMonths ?? 12 },
    select: { id: true },
  });
  return { programId: program.id };
}

/** A program's settings, or 404. */
export async function getProgram(db: Db, id: string) {
  const program = await db.program.findUnique({
    where: { id },
    select: { id: true, name: true, tierPeriodMonths: true, pointsExpiryMonths: true },
  });
  if (!program) throw notFound("program");
  return program;
}

export async function updateProgram(
  db: Db,
  id: string,
  changes: {
    name?: string;
    tierPeriodMonths?: number;
    pointsExpiryMonths?: number | null;
    adjustCeilingSupport?: number | null;
    adjustCeilingManager?: number | null;
  },
) {
  const existing = await db.program.findUnique({ where: { id }, select: { id: true } });
  if (!existing) throw notFound("program");
  return db.program.update({
    where: { id },
    data: changes,
    select: { id: true, name: true, tierPeriodMonths: true, pointsExpiryMonths: true, adjustCeilingSupport: true, adjustCeilingManager: true },
  });
}

/** The program's manual-adjustment ceilings per role (lib/domain/adjustment-ceilings.ts). */
export async function programAdjustCeilings(db: Db, programId: string): Promise<AdjustCeilings> {
  const program = await db.program.findUnique({ where: { id: programId }, select: { adjustCeilingSupport: true, adjustCeilingManager: true } });
  if (!program) throw notFound("program");
  return { support: program.adjustCeilingSupport, manager: program.adjustCeilingManager };
}
