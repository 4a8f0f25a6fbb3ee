import "server-only";
import { isoSql, type Db, type Tx } from "@/lib/db/types";
import { requireRow } from "@/lib/db/require-row";
import { programNow } from "./clock";
import { namedParams } from "@/lib/db/statement";
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
import { emitEvent } from "./events";
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

/** One statement: take a free code (SKIP LOCKED, see assignCoupon), assign it and date it from the pool's validity. */
const ASSIGN_SQL = `
WITH next AS (
  SELECT id FROM "Coupon" WHERE "programId" = $3::uuid AND "poolId" = $1::uuid AND "customerId" IS NULL LIMIT 1 FOR UPDATE SKIP LOCKED
)
UPDATE "Coupon" c SET "customerId" = $2::uuid, "assignedAt" = $4::timestamptz,
  "expiresAt" = CASE WHEN p."validDays" IS NULL THEN NULL ELSE $4::timestamptz + make_interval(days => p."validDays") END
FROM next, "CouponPool" p
WHERE c.id = next.id AND p.id = c."poolId"
RETURNING c.code, ${isoSql('c."assignedAt"')} AS "assignedAt", ${isoSql('c."expiresAt"')} AS "expiresAt"`;

/**
 * Gives the customer the next free code of the pool. SKIP LOCKED lets concurrent assignments each take a
 * different code instead of queueing on (or double-assigning) the same one.
 */
export async function assignCoupon(tx: Tx, input: { programId: string; customerId: string; couponPoolId: string }) {
  const pool = await requireCouponPool(tx, input.couponPoolId, input.programId);
  if (!pool.active) throw couponPoolInactive();
  const now = programNow(input.programId);
  const [coupon] = await tx.$queryRawUnsafe<{ code: string; assignedAt: string; expiresAt: string | null }[]>(
    ASSIGN_SQL,
    input.couponPoolId,
    input.customerId,
    input.programId,
    now.toISOString(),
  );
  if (!coupon) throw couponPoolEmpty();
  await emitEvent(
    tx,
    input.programId,
    "coupon.assigned",
    {
      customerId: input.customerId,
      couponPoolId: input.couponPoolId,
      code: coupon.code,
    },
    now,
  );
  return {
    code: coupon.code,
    couponPoolId: input.couponPoolId,
    assignedAt: coupon.assignedAt,
    expiresAt: coupon.expiresAt,
  };
}

const ASSIGN = namedParams(["programId", "poolId", "customerId", "now"] as const, KEYED_PARAM_COUNT + 1);
const a = ASSIGN.sql;

/**
 * `assignCoupon` as a keyed statement's write (lib/db/keyed-statement.ts): the pool (of the program), the next free
 * code of an active pool (SKIP LOCKED, as ASSIGN_SQL), its dates and the coupon.assigned event; `result` is the
 * coupon as `assignCoupon` returns it (dates as ISO text).
 */
export const ASSIGN_WRITE: StatementWrite = {
  ctes: `pool AS (
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
  RETURNING c.code, ${isoSql('c."assignedAt"')} AS "assignedAt", ${isoSql('c."expiresAt"')} AS "expiresAt"
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

/** The error of a refused assignment: every refusal is an answer. */
export function assignCouponRefusal(why: string) {
  if (why === "coupon_pool_not_found") return couponPoolNotFound();
  if (why === "coupon_pool_inactive") return couponPoolInactive();
  if (why === "coupon_pool_empty") return couponPoolEmpty();
  return new Error(`coupon assignment refused: ${why}`);
}
