import "server-only";
import type { Db } from "@/lib/db/types";
import type { Prisma } from "@/lib/generated/prisma/client";
import { notFound } from "@/lib/errors";
import type { AdjustCeilings } from "./adjustment-ceilings";

/**
 * The one place for programs: creating and changing them, and `requireProgram`, the "program exists or 404"
 * guard that every domain function naming a program runs before it writes.
 */

/** The program with the `select`ed fields (its id when none), or 404 `not_found`. */
export async function requireProgram(db: Db, id: string): Promise<{ id: string }>;
export async function requireProgram<S extends Prisma.ProgramSelect>(
  db: Db,
  id: string,
  select: S,
): Promise<Prisma.ProgramGetPayload<{ select: S }>>;
export async function requireProgram(
  db: Db,
  id: string,
  select: Prisma.ProgramSelect = { id: true },
): Promise<unknown> {
  const program = await db.program.findUnique({ where: { id }, select });
  if (!program) throw notFound("program");
  return program;
}

export async function createProgram(
  db: Db,
  input: { name: string; tierPeriodMonths?: number },
): Promise<{ programId: string }> {
  const program = await db.program.create({
    data: { name: input.name, tierPeriodMonths: input.tierPeriodMonths ?? 12 },
    select: { id: true },
  });
  return { programId: program.id };
}

/** A program's settings, or 404. */
export const getProgram = (db: Db, id: string) =>
  requireProgram(db, id, { id: true, name: true, tierPeriodMonths: true, pointsExpiryMonths: true });

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
  await requireProgram(db, id);
  return db.program.update({
    where: { id },
    data: changes,
    select: {
      id: true,
      name: true,
      tierPeriodMonths: true,
      pointsExpiryMonths: true,
      adjustCeilingSupport: true,
      adjustCeilingManager: true,
    },
  });
}

/** The program's manual-adjustment ceilings per role (lib/domain/adjustment-ceilings.ts). */
export async function programAdjustCeilings(db: Db, programId: string): Promise<AdjustCeilings> {
  const program = await requireProgram(db, programId, { adjustCeilingSupport: true, adjustCeilingManager: true });
  return { support: program.adjustCeilingSupport, manager: program.adjustCeilingManager };
}
