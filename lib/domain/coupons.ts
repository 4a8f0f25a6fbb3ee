import "server-only";
import { isoSql, type Db, type Tx } from "@/lib/db/types";
import { requireRow } from "@/lib/db/require-row";
import { programNow } from "./clock";
import { params, raw, sql } from "@/lib/db/sql";
import { KEYED_PARAM_COUNT, type StatementWrite } from "@/lib/db/keyed-statement";
import {
  conflict,
  couponPoolEmpty,
  couponPoolInactive,
  couponPoolNotFound,
  invalidInput,
  uniqueOr409,
} from "@/lib/errors";
import { COUPON_CODE, notACouponCode } from "./coupon-codes";
import { lockedStatement, runLockedWrite } from "./locked-write";
import { requireProgram } from "./programs";

export async function createCouponPool(db: Db, input: { programId: string; name: string; validDays?: number | null }) {
  await requireProgram(db, input.programId);
  const pool = await uniqueOr409(
    () => db.couponPool.create({ data: input, select: { id: true } }),
    () => conflict(`The program already has a coupon pool named "${input.name}".`),
  );
  return { couponPoolId: pool.id };
}

/** The pool (of the program, when given), or 404 `coupon_pool_not_found`. */
export async function requireCouponPool(
  db: Db,
  couponPoolId: string,
  programId?: string,
): Promise<{ id: string; active: boolean }> {
  return requireRow(
    couponPoolId,
    (id) => db.couponPool.findFirst({ where: { id, programId }, select: { id: true, active: true } }),
    couponPoolNotFound,
  );
}

/**
 * Renames a pool of the program, changes its validity (for codes assigned from now on) or switches it off or on.
 * A deactivated pool assigns nothing (409 `coupon_pool_inactive`); codes it already gave stay valid.
 */
export async function updateCouponPool(
  db: Db,
  programId: string,
  couponPoolId: string,
  changes: { name?: string; validDays?: number | null; active?: boolean },
) {
  await requireCouponPool(db, couponPoolId, programId);
  await uniqueOr409(
    () => db.couponPool.update({ where: { id: couponPoolId }, data: changes, select: { id: true } }),
    () => conflict(`The program already has a coupon pool named "${changes.name}".`),
  );
  return { couponPoolId };
}

const CHUNK = 5000;

/**
 * Adds codes to a pool in chunks of multi-row INSERT … ON CONFLICT DO NOTHING, so a re-import of the same
 * file adds nothing twice. Blank lines are ignored; an invalid code stops the import before its chunk.
 * Given a transaction client, the whole import commits or rolls back with the caller's transaction.
 */
export async function importCoupons(
  prisma: Db,
  poolId: string,
  codes: AsyncIterable<string> | Iterable<string>,
  onProgress?: (p: { read: number; imported: number; skipped: number }) => void,
): Promise<{ imported: number; skipped: number }> {
  await requireCouponPool(prisma, poolId);
  let chunk: string[] = [];
  let read = 0;
  let imported = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    const [row] = await prisma.$queryRawUnsafe<{ n: number }[]>(
      `WITH ins AS (
         INSERT INTO "Coupon" ("programId", "poolId", code)
         SELECT p."programId", p.id, code FROM "CouponPool" p CROSS JOIN jsonb_array_elements_text($2::jsonb) AS code
         WHERE p.id = $1::uuid
         ON CONFLICT ("poolId", code) DO NOTHING RETURNING 1
       ) SELECT count(*)::int AS n FROM ins`,
      poolId,
      JSON.stringify(chunk),
    );
    imported += row?.n ?? 0;
    chunk = [];
    onProgress?.({ read, imported, skipped: read - imported });
  };
  for await (const raw of codes) {
    const code = raw.trim();
    if (!code) continue;
    if (!COUPON_CODE.test(code)) throw invalidInput(`Line ${read + 1}: ${notACouponCode(code)}.`);
    read++;
    chunk.push(code);
    if (chunk.length >= CHUNK) await flush();
  }
  await flush();
  return { imported, skipped: read - imported };
}

const ASSIGN = params(["programId", "poolId", "customerId", "now"] as const, KEYED_PARAM_COUNT + 1);
const a = ASSIGN.sql;

/**
 * A coupon assignment as a write of one statement, the one decision of both paths: the API's keyed statement
 * (lib/db/keyed-statement.ts) and the locked path (`assignCoupon`): the pool (of the program), the next free
 * code of an active pool (SKIP LOCKED), its dates and the coupon.assigned event; `result` is the
 * coupon as `assignCoupon` returns it (dates as ISO text).
 */
export const ASSIGN_WRITE: StatementWrite = {
  ctes: sql`pool AS (
  SELECT p.id, p."validDays", p.active FROM "CouponPool" p
  WHERE p."programId" = ${a.programId}::uuid AND p.id = ${a.poolId}::uuid AND EXISTS (SELECT 1 FROM go)
), next AS (
  SELECT k.id FROM "Coupon" k
  WHERE k."programId" = ${a.programId}::uuid AND k."poolId" = (SELECT id FROM pool WHERE active) AND k."customerId" IS NULL
  LIMIT 1 FOR UPDATE SKIP LOCKED
), assigned AS (
  UPDATE "Coupon" c SET "customerId" = ${a.customerId}::uuid, "assignedAt" = ${a.now}::timestamptz,
    "expiresAt" = CASE WHEN pool."validDays" IS NULL THEN NULL ELSE ${a.now}::timestamptz + make_interval(days => pool."validDays") END
  FROM next, pool
  WHERE c.id = next.id AND c."programId" = ${a.programId}::uuid
  RETURNING c.code, ${raw(isoSql('c."assignedAt"'))} AS "assignedAt", ${raw(isoSql('c."expiresAt"'))} AS "expiresAt"
), event AS (
  INSERT INTO "Event" ("programId", type, data, "createdAt")
  SELECT ${a.programId}::uuid, 'coupon.assigned',
         jsonb_build_object('customerId', ${a.customerId}::uuid, 'couponPoolId', ${a.poolId}::uuid, 'code', assigned.code),
         ${a.now}::timestamptz
  FROM assigned
  RETURNING 1
), result AS (
  SELECT ${a.customerId}::uuid AS "customerId", assigned.code, ${a.poolId}::text AS "couponPoolId", assigned."assignedAt",
         assigned."expiresAt"
  FROM assigned
), refusal AS (
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM pool) THEN 'coupon_pool_not_found'
              WHEN NOT (SELECT active FROM pool) THEN 'coupon_pool_inactive'
              ELSE 'coupon_pool_empty' END AS why
  WHERE EXISTS (SELECT 1 FROM go)
), invariant AS (
  SELECT NOT EXISTS (SELECT 1 FROM assigned) OR EXISTS (SELECT 1 FROM event) AS ok
)`,
};

/** The values of ASSIGN_WRITE's parameters (after the keyed statement's five); the time is the program's clock's. */
export const assignCouponValues = (input: { programId: string; customerId: string; couponPoolId: string }) =>
  ASSIGN.values({
    programId: input.programId,
    poolId: input.couponPoolId,
    customerId: input.customerId,
    now: programNow(input.programId).toISOString(),
  });

/**
 * Gives the customer the next free code of the pool, in the caller's transaction (the dashboard, and the requests
 * the one-statement path hands over): the same statement as that path (`ASSIGN_WRITE`), so both decide alike.
 * SKIP LOCKED lets concurrent assignments each take a different code instead of queueing on (or double-assigning)
 * the same one; no lock is taken first, as nothing is settled before the statement. Every refusal throws.
 */
export async function assignCoupon(tx: Tx, input: { programId: string; customerId: string; couponPoolId: string }) {
  const done = await runLockedWrite(tx, LOCKED_ASSIGN_SQL, assignCouponValues(input));
  if ("refusal" in done) throw assignCouponRefusal(done.refusal);
  const r = done.row;
  return {
    code: String(r.code),
    couponPoolId: String(r.couponPoolId),
    assignedAt: String(r.assignedAt),
    expiresAt: r.expiresAt == null ? null : String(r.expiresAt),
  };
}

const LOCKED_ASSIGN_SQL = lockedStatement(ASSIGN_WRITE, ["code", '"couponPoolId"', '"assignedAt"', '"expiresAt"']);

/** The error of a refused assignment: every refusal is an answer. */
export function assignCouponRefusal(why: string) {
  if (why === "coupon_pool_not_found") return couponPoolNotFound();
  if (why === "coupon_pool_inactive") return couponPoolInactive();
  if (why === "coupon_pool_empty") return couponPoolEmpty();
  return new Error(`coupon assignment refused: ${why}`);
}
