import type { Db, Tx } from "@/lib/db/types";
import { COUPON_CODE } from "@/lib/api/schemas";
import { conflict, couponPoolEmpty, couponPoolNotFound, invalidInput, notFound, uniqueViolation } from "@/lib/errors";
import { emitEvent } from "./events";

export async function createCouponPool(db: Db, input: { programId: string; name: string; validDays?: number | null }) {
  const program = await db.program.findUnique({ where: { id: input.programId }, select: { id: true } });
  if (!program) throw notFound("program");
  try {
    const pool = await db.couponPool.create({ data: input, select: { id: true } });
    return { couponPoolId: pool.id };
  } catch (err) {
    if (uniqueViolation(err)) throw conflict(`The program already has a coupon pool named "${input.name}".`);
    throw err;
  }
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
  const pool = await prisma.couponPool.findUnique({ where: { id: poolId }, select: { id: true } });
  if (!pool) throw couponPoolNotFound();
  let chunk: string[] = [];
  let read = 0;
  let imported = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    const [row] = await prisma.$queryRawUnsafe<{ n: number }[]>(
      `WITH ins AS (
         INSERT INTO "Coupon" ("poolId", code)
         SELECT $1::uuid, code FROM jsonb_array_elements_text($2::jsonb) AS code
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
    if (!COUPON_CODE.test(code)) throw invalidInput(`Line ${read + 1}: "${code.slice(0, 70)}" is not a coupon code (letters, digits, - and _, at most 64).`);
    read++;
    chunk.push(code);
    if (chunk.length >= CHUNK) await flush();
  }
  await flush();
  return { imported, skipped: read - imported };
}

/**
 * Gives the customer the next free code of the pool. SKIP LOCKED lets concurrent assignments each take a
 * different code instead of queueing on (or double-assigning) the same one.
 */
export async function assignCoupon(tx: Tx, input: { programId: string; customerId: string; couponPoolId: string }) {
  const pool = await tx.couponPool.findFirst({ where: { id: input.couponPoolId, programId: input.programId }, select: { id: true } });
  if (!pool) throw couponPoolNotFound();
  const [coupon] = await tx.$queryRawUnsafe<{ code: string; assignedAt: string; expiresAt: string | null }[]>(
    `WITH next AS (
       SELECT id FROM "Coupon" WHERE "poolId" = $1::uuid AND "customerId" IS NULL LIMIT 1 FOR UPDATE SKIP LOCKED
     )
     UPDATE "Coupon" c SET "customerId" = $2::uuid, "assignedAt" = now(),
       "expiresAt" = CASE WHEN p."validDays" IS NULL THEN NULL ELSE now() + make_interval(days => p."validDays") END
     FROM next, "CouponPool" p
     WHERE c.id = next.id AND p.id = c."poolId"
     RETURNING c.code, to_char(c."assignedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "assignedAt",
               to_char(c."expiresAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "expiresAt"`,
    input.couponPoolId,
    input.customerId,
  );
  if (!coupon) throw couponPoolEmpty();
  await emitEvent(tx, input.programId, "coupon.assigned", { customerId: input.customerId, couponPoolId: input.couponPoolId, code: coupon.code });
  return { code: coupon.code, couponPoolId: input.couponPoolId, assignedAt: coupon.assignedAt, expiresAt: coupon.expiresAt };
}
