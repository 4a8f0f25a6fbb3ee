import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import type { Prisma } from "@/lib/generated/prisma/client";
import { notFound, validationFailed } from "@/lib/errors";
import type { AdjustCeilings } from "./adjustment-ceilings";
import { realTime } from "./real-time";
import { isTimeZone } from "./time-zones";
import { allowedOrigins, allowedOriginsProblem } from "./web-origins";

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

/**
 * A new program, live or test (fixed here, never changed: API.md "Test programs"). A test program's clock starts at
 * the real time of its creation, or at `clockAt`.
 */
export async function createProgram(
  db: Db,
  input: {
    name: string;
    tierPeriodMonths?: number;
    pointsExpiryMonths?: number | null;
    timeZone?: string;
    test?: boolean;
    clockAt?: Date;
  },
): Promise<{ programId: string }> {
  const program = await db.program.create({
    data: {
      name: input.name,
      tierPeriodMonths: input.tierPeriodMonths ?? 12,
      pointsExpiryMonths: input.pointsExpiryMonths ?? null,
      timeZone: input.timeZone ?? "UTC",
      test: input.test ?? false,
      clockAt: input.test ? (input.clockAt ?? realTime()) : null,
    },
    select: { id: true },
  });
  return { programId: program.id };
}

/** A new program and its first owner (the staff member who created it from the dashboard), in the caller's transaction. */
export async function createProgramWithOwner(tx: Tx, ownerStaffId: string, input: Parameters<typeof createProgram>[1]) {
  const created = await createProgram(tx, input);
  await tx.staffMembership.create({ data: { staffId: ownerStaffId, programId: created.programId, role: "owner" } });
  return created;
}

/** A program's settings, or 404. */
export const getProgram = (db: Db, id: string) => requireProgram(db, id, PROGRAM_SETTINGS);

/** The settings a program's owners and managers change (the dashboard's settings page, `program update`). */
export const PROGRAM_SETTINGS = {
  id: true,
  name: true,
  tierPeriodMonths: true,
  pointsExpiryMonths: true,
  timeZone: true,
  adjustCeilingSupport: true,
  adjustCeilingManager: true,
  redemptionCancelHours: true,
  allowedOrigins: true,
} as const;
export type ProgramSettings = Prisma.ProgramGetPayload<{ select: typeof PROGRAM_SETTINGS }>;

export async function updateProgram(
  db: Db,
  id: string,
  changes: {
    name?: string;
    tierPeriodMonths?: number;
    pointsExpiryMonths?: number | null;
    adjustCeilingSupport?: number | null;
    adjustCeilingManager?: number | null;
    timeZone?: string;
    /** Hours a redemption may be cancelled for (lib/domain/redemption-cancel.ts); 0: never; null: at any time. */
    redemptionCancelHours?: number | null;
    /** The web origins whose pages may call the /me routes (web-origins.ts; lib/api/cors.ts). */
    allowedOrigins?: string[];
  },
) {
  if (changes.timeZone !== undefined && !isTimeZone(changes.timeZone))
    throw validationFailed([{ path: "timeZone", message: "must be an IANA time zone, e.g. Europe/Madrid" }]);
  const originsProblem = changes.allowedOrigins && allowedOriginsProblem(changes.allowedOrigins);
  if (originsProblem) throw validationFailed([{ path: "allowedOrigins", message: originsProblem }]);
  await requireProgram(db, id);
  const data = changes.allowedOrigins
    ? { ...changes, allowedOrigins: allowedOrigins(changes.allowedOrigins) }
    : changes;
  return db.program.update({ where: { id }, data, select: PROGRAM_SETTINGS });
}

/** The program's manual-adjustment ceilings per role (lib/domain/adjustment-ceilings.ts). */
export async function programAdjustCeilings(db: Db, programId: string): Promise<AdjustCeilings> {
  const program = await requireProgram(db, programId, { adjustCeilingSupport: true, adjustCeilingManager: true });
  return { support: program.adjustCeilingSupport, manager: program.adjustCeilingManager };
}
