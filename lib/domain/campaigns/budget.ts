import "server-only";
import type { Db, Tx } from "@/lib/db/types";

/**
 * A campaign's budget in slices. Every event a budgeted campaign rewards consumes its budget; done on the campaign's
 * row, all those events queue on that one row lock (held until each commits): bench/profile.ts `events` measured the
 * event's statement at 30 ms mean, nearly all of it waiting, against 1.7 ms without budgets.
 *
 * So the hot path (event-write.ts `perEventShape`) spends room set aside ahead of time in one of the campaign's
 * `SLICES` slices (`CampaignBudgetSlice`, one that no concurrent event holds: event-write.ts `bslice`):
 * `Campaign.budgetUsed` counts the points given AND the room the slices hold, and is still guarded by `budgetUsed + n <= budget` whenever it grows, so
 * points given = `budgetUsed - Σ room` never exceed the budget, whatever the interleaving. A slice without room enough
 * takes more from the campaign's row in the same statement (`chunk`, a fraction of what is left, so that little is
 * held in slices when the budget runs low); when the row has not that much left either, the statement fails and the
 * locked path takes the event: it locks the slices and the row (`lockBudgets`), gives the slices' room back to the
 * budget, and decides on the exact figure, as before. Everyone who reads the points given reads `BUDGET_USED`.
 *
 * Lock order, to never deadlock: a campaign's slices before its row (the hot statement, `lockBudgets`, activation).
 */
// 16: more than the connections of a default pool (10), so that an event finds one that no other holds.
export const SLICES = 16;

/** The points a campaign (alias `k`, a "Campaign" row) has given: its row's count less its slices' room. */
export const budgetUsedSql = (k: string) =>
  // A row count of 0 means that its slices hold no room either (the count includes their room, which is only ever
  // set aside by raising it), so they are not read: a program's campaigns without a budget (their count stays 0)
  // cost the hot path's snapshot no read of their slices (bench/profile.ts `events`: 20 such reads were most of its
  // 0.5 ms; 0.14 ms without).
  `(CASE WHEN ${k}."budgetUsed" = 0 THEN 0 ELSE ${k}."budgetUsed" - coalesce((SELECT sum(bs.room) FROM "CampaignBudgetSlice" bs WHERE bs."campaignId" = ${k}.id), 0) END)::int`;

/**
 * How much a slice short of room takes from the campaign's row for an event of `points` (the hot path): the points
 * and some room ahead for the slice's next events, at most 1/(4 × SLICES) of what the row has left after them (so
 * the slices hold at most a quarter of what was left) and 63 more events' worth.
 */
export function budgetChunk(points: number, budget: number, counted: number): number {
  const left = budget - counted - points;
  if (left <= 0) return points;
  return points + Math.min(points * 63, Math.floor(left / (4 * SLICES)));
}

/** The points given by each campaign named (not locked). */
export async function budgetsUsed(db: Db, ids: string[]): Promise<Map<string, number>> {
  if (!ids.length) return new Map();
  const rows = await db.$queryRawUnsafe<{ id: string; used: number }[]>(
    `SELECT k.id::text AS id, ${budgetUsedSql("k")} AS used FROM "Campaign" k WHERE k.id = ANY($1::uuid[])`,
    ids,
  );
  return new Map(rows.map((r) => [r.id, Number(r.used)]));
}

/**
 * Locks the campaigns' budgets for the rest of the transaction (their slices, then their rows, in id order) and
 * gives the slices' room back to the budget, so that the row's `budgetUsed` is the points given until commit:
 * what a locked path decides on (customer-events.ts, lifecycle.ts). By campaign id.
 */
export async function lockBudgets(tx: Tx, ids: string[]): Promise<Map<string, number>> {
  if (!ids.length) return new Map();
  const held = await tx.$queryRawUnsafe<{ id: string; room: number }[]>(
    `SELECT h.id, sum(h.room)::int AS room FROM (
       SELECT s."campaignId"::text AS id, s.room FROM "CampaignBudgetSlice" s
       WHERE s."campaignId" = ANY($1::uuid[]) ORDER BY s."campaignId", s.slice FOR UPDATE
     ) h GROUP BY h.id`,
    ids,
  );
  const locked = await tx.$queryRawUnsafe<{ id: string; budgetUsed: number }[]>(
    `SELECT id::text AS id, "budgetUsed" FROM "Campaign" WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
    ids,
  );
  const room = new Map(held.filter((h) => Number(h.room) > 0).map((h) => [h.id, Number(h.room)]));
  if (room.size) {
    await tx.$executeRawUnsafe(
      `UPDATE "CampaignBudgetSlice" SET room = 0 WHERE "campaignId" = ANY($1::uuid[]) AND room > 0`,
      [...room.keys()],
    );
    await tx.$executeRawUnsafe(
      `UPDATE "Campaign" c SET "budgetUsed" = c."budgetUsed" - r.room
       FROM unnest($1::uuid[], $2::int[]) AS r(id, room) WHERE c.id = r.id`,
      [...room.keys()],
      [...room.values()],
    );
  }
  return new Map(locked.map((l) => [l.id, Number(l.budgetUsed) - (room.get(l.id) ?? 0)]));
}

/** A new campaign's slices (room 0). */
export async function createSlices(tx: Tx, programId: string, campaignId: string) {
  await tx.$executeRawUnsafe(
    `INSERT INTO "CampaignBudgetSlice" ("programId", "campaignId", slice, room)
     SELECT $1::uuid, $2::uuid, s, 0 FROM generate_series(0, ${SLICES - 1}) AS s ON CONFLICT DO NOTHING`,
    programId,
    campaignId,
  );
}
