import type { Db } from "@/lib/db/types";

export async function createProgram(db: Db, input: { name: string; tierPeriodMonths?: number }): Promise<{ programId: string }> {
  const program = await db.program.create({
    data: { name: input.name, tierPeriodMonths: input.tierPeriodMonths ?? 12 },
    select: { id: true },
  });
  return { programId: program.id };
}
