import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Db, Tx } from "@/lib/db/types";
import { query, raw, sql } from "@/lib/db/sql";
import { sweepNow } from "./clock";
import { lotExpirySql } from "./expiry-rules";

/**
 * `points.expiring` (API.md §5): the program's `expiryWarningDays` before a lot's expiry (expiry-rules.ts), one event
 * per customer and expiry instant with the points that expire then; each lot is warned once per expiry instant
 * (`PointLot.warnedFor`: an `inactivity` lot whose expiry moved on with new activity is warned again before its new
 * expiry). Run after the expiry of due lots at the same instant (a test program's clock step, the scheduled sweep).
 */

/** The SQL of the earliest warning instant after `since` (null: any) of the program, for the clock's next step. */
export const nextWarningSql = (programId: string, since: string | null) =>
  sql`SELECT min(greatest(w.expires - make_interval(days => p."expiryWarningDays"),
                          ${since}::timestamptz + interval '1 millisecond'))
      FROM (SELECT ${raw(lotExpirySql("pl", 'l."lastActivityAt"'))} AS expires, pl."warnedFor"
            FROM "PointLot" pl JOIN "LoyaltyData" l ON l."programId" = pl."programId" AND l."customerId" = pl."customerId"
            WHERE pl."programId" = ${programId}::uuid AND pl.remaining > 0) w
      JOIN "Program" p ON p.id = ${programId}::uuid AND p."expiryWarningDays" IS NOT NULL
      WHERE w.expires IS NOT NULL AND w."warnedFor" IS DISTINCT FROM w.expires
        AND (${since}::timestamptz IS NULL OR w.expires > ${since}::timestamptz)`;

/** Emits the warnings due by `at` for the program's lots; answers the customers warned. */
export async function warnExpiringPoints(db: Tx | Db, programId: string, at: Date): Promise<number> {
  const iso = at.toISOString();
  const rows = await query<{ n: number }>(
    db,
    sql`WITH due AS (
      SELECT pl.id, pl."customerId", pl.remaining, ${raw(lotExpirySql("pl", 'l."lastActivityAt"'))} AS expires
      FROM "PointLot" pl
        JOIN "LoyaltyData" l ON l."programId" = pl."programId" AND l."customerId" = pl."customerId"
        JOIN "Program" p ON p.id = pl."programId"
        JOIN "Customer" c ON c.id = pl."customerId" AND c."deletedAt" IS NULL
      WHERE pl."programId" = ${programId}::uuid AND pl.remaining > 0 AND p."expiryWarningDays" IS NOT NULL
        -- Not warned for this expiry yet; re-checked on the latest row once locked, so two sweeps never both warn.
        AND pl."warnedFor" IS DISTINCT FROM ${raw(lotExpirySql("pl", 'l."lastActivityAt"'))}
      FOR UPDATE OF pl SKIP LOCKED
    ), warn AS (
      SELECT d.* FROM due d JOIN "Program" p ON p.id = ${programId}::uuid
      WHERE d.expires > ${iso}::timestamptz
        AND d.expires - make_interval(days => p."expiryWarningDays") <= ${iso}::timestamptz
    ), marked AS (
      UPDATE "PointLot" pl SET "warnedFor" = warn.expires FROM warn WHERE pl.id = warn.id RETURNING 1
    ), events AS (
      INSERT INTO "Event" ("programId", type, data, "createdAt")
      SELECT ${programId}::uuid, 'points.expiring',
             jsonb_build_object('customerId', warn."customerId", 'points', sum(warn.remaining)::int,
                                'expiresAt', to_char(warn.expires AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
             ${iso}::timestamptz
      FROM warn GROUP BY warn."customerId", warn.expires
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM events)::int AS n FROM (SELECT count(*) FROM marked) m`,
  );
  return rows[0]?.n ?? 0;
}

/** The scheduler's sweep over live programs with a warning set (real time). */
export async function warnExpiringEverywhere(prisma: PrismaClient): Promise<number> {
  const programs = await query<{ id: string }>(
    prisma,
    sql`SELECT id::text AS id FROM "Program" WHERE NOT test AND "expiryWarningDays" IS NOT NULL`,
  );
  let n = 0;
  for (const { id } of programs) n += await warnExpiringPoints(prisma, id, sweepNow(id));
  return n;
}
