import "server-only";
import { randomBytes } from "node:crypto";
import type { Db, RawQueries, Tx } from "@/lib/db/types";
import { rewardInactive, rewardNotFound, rewardOutOfStock, validationFailed } from "@/lib/errors";
import { params, raw, sql, type Sql } from "@/lib/db/sql";
import { KEYED_PARAM_COUNT, type StatementWrite } from "@/lib/db/keyed-statement";
import { changeCtes, changeRefusal, expireDueLots } from "./ledger";
import { lotExpirySql } from "./expiry-rules";
import { lockBalance } from "./balance-lock";
import { lockedStatement, runLockedWrite } from "./locked-write";
import { redeemRuleRefusal, redeemRulesCtes } from "./redeem-rules";
import { requireProgram } from "./programs";
import { programNow } from "./clock";
import { jsonObject } from "./sql";
import { isoSql } from "@/lib/db/types";

export interface RewardInput {
  programId: string;
  name: string;
  costPoints: number;
  stock?: number | null;
  description?: string | null;
  image?: string | null;
  active?: boolean;
  /** Redemptions allowed per customer, ever; null: no limit (lib/domain/redeem-rules.ts). */
  perCustomerLimit?: number | null;
  /** The lowest tier that may redeem it; null: every customer. */
  minTierId?: string | null;
}

/** A reward's minimum tier must be a tier of its program (400 on `minTierId` otherwise). */
async function checkMinTier(db: Db, programId: string, minTierId: string | null | undefined) {
  if (!minTierId) return;
  const tier = await db.tier.findFirst({ where: { id: minTierId, programId }, select: { id: true } });
  if (!tier) throw validationFailed([{ path: "minTierId", message: "must be a tier of this program" }]);
}

export async function createReward(db: Db, input: RewardInput): Promise<{ rewardId: string }> {
  await requireProgram(db, input.programId);
  await checkMinTier(db, input.programId, input.minTierId);
  const reward = await db.reward.create({ data: input, select: { id: true } });
  return { rewardId: reward.id };
}

/**
 * Changes a reward of the program (name, cost, stock, description, image, active, per-customer limit, minimum tier). Setting `stock` replaces the
 * units left (null: unlimited); redemptions already made are untouched.
 */
export async function updateReward(
  db: Db,
  programId: string,
  rewardId: string,
  changes: Partial<Omit<RewardInput, "programId">>,
) {
  await checkMinTier(db, programId, changes.minTierId);
  const updated = await db.reward.updateMany({ where: { id: rewardId, programId }, data: changes });
  if (updated.count === 0) throw rewardNotFound();
  return { rewardId };
}

export const rewardJson = (r: string) =>
  jsonObject({
    id: `${r}.id`,
    programId: `${r}."programId"`,
    name: `${r}.name`,
    description: `${r}.description`,
    image: `${r}.image`,
    costPoints: `${r}."costPoints"`,
    stock: `${r}.stock`,
    active: `${r}.active`,
    createdAt: isoSql(`${r}."createdAt"`),
    updatedAt: isoSql(`${r}."updatedAt"`),
  });

/** Active rewards, cheapest first, as JSON text. */
export async function listActiveRewardsJson(db: RawQueries, programId: string): Promise<string> {
  const [row] = await db.$queryRawUnsafe<{ body: string }[]>(
    `SELECT coalesce(json_agg(${rewardJson("r")} ORDER BY r."costPoints", r.name), '[]'::json)::text AS body
     FROM "Reward" r WHERE r."programId" = $1::uuid AND r.active`,
    programId,
  );
  return row?.body ?? "[]";
}

const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"; // no 0/O or 1/I: codes are read aloud at tills

function redemptionCode(): string {
  let code = "";
  for (const b of randomBytes(10)) code += CODE_ALPHABET[b % CODE_ALPHABET.length];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/**
 * Redeems a reward in the caller's transaction (the dashboard, /me, the CLI, and the requests the one-statement path
 * hands over): the locks first, in the order of every redemption, Reward row → balance row (a limited reward's row
 * only: an unlimited one is never written, so its redemptions do not queue on one row); then what is due, points
 * that expired by now (a spend never draws on them, even when the expiry job has not run yet); then the redemption
 * statement itself (`redeemWrite`), which decides as on the one-statement path: the refusals in their order, a
 * limited reward's unit taken (never below zero), the spend through the ledger (never below zero either), the
 * redemption with its code and its event. Any refusal throws, which rolls all of it back.
 */
export async function redeemReward(
  tx: Tx,
  input: {
    programId: string;
    customerId: string;
    rewardId: string;
    actor: string;
    source: RedeemSource;
    metadata?: Record<string, unknown> | null;
    idempotencyKey?: string | null;
  },
) {
  // One time for the whole redemption: the lots it expires, its entry, its redemption and its event.
  const now = programNow(input.programId);
  await tx.$queryRawUnsafe(
    `SELECT 1 FROM "Reward" WHERE id = $1::uuid AND "programId" = $2::uuid AND stock IS NOT NULL FOR NO KEY UPDATE`,
    input.rewardId,
    input.programId,
  );
  await lockBalance(tx, input.programId, input.customerId);
  await expireDueLots(tx, input.programId, input.customerId, now);
  const done = await runLockedWrite(tx, LOCKED_REDEEM_SQL[input.source], redeemValues({ ...input, now }));
  if ("refusal" in done)
    throw redeemRefusal(done.refusal) ?? new Error(`redemption refused under its locks: ${done.refusal}`);
  const r = done.row;
  return {
    redemption: {
      id: String(r.id),
      rewardId: String(r.rewardId),
      customerId: String(r.customerId),
      code: String(r.code),
      points: Number(r.points),
      transactionId: String(r.entry_id),
      metadata: r.metadata ?? null,
      createdAt: String(r.createdAt),
      // A new redemption's code is valid until it is cancelled (redemption-cancel.ts).
      status: "active" as const,
      cancelledAt: null,
      cancelReason: null,
    },
    balance: Number(r.balance),
  };
}

const REDEEM = params(
  [
    "programId",
    "customerId",
    "rewardId",
    "code",
    "actor",
    "metadata",
    "ledgerMetadata",
    "idempotencyKey",
    "now",
  ] as const,
  KEYED_PARAM_COUNT + 1,
);
const d = REDEEM.sql;

/** Who redeems: the ledger entry's source. A closed set, written into the statement's text (one text per source). */
export type RedeemSource = "api" | "dashboard";

/**
 * A redemption as a write of one statement, the one decision of both paths: the API's keyed statement
 * (lib/db/keyed-statement.ts, `REDEEM_WRITE`) and the locked path (`redeemReward`, `lockedStatement`). Read from one
 * snapshot: the reward of the program (404 `reward_not_found`, 409 `reward_inactive`, `reward_out_of_stock`), the
 * per-customer rules (redeem-rules.ts), the balance (409 `insufficient_balance`) and points due to expire
 * (`expiry_due`: the locked path expires them first), in this order of refusals. Only when all of them pass does a
 * limited reward take its unit (`taken`: the conditional UPDATE, never below zero) and then the balance change of
 * ledger.ts (`changeCtes`) spend the cost: its points are null (no change) unless the unit was taken, so the Reward
 * row is locked before the balance row, the lock order of every redemption. `invariant` makes the unit and the spend
 * commit together or not at all: on the one-statement path, a unit taken whose spend a concurrent change stopped
 * (the balance row's xmin guard) fails the whole statement, and the request takes the locked path, as it does when a
 * concurrent redemption took the last unit after the snapshot (`race`); on the locked path both rows are locked
 * before the statement reads, so neither can happen. Then the Redemption row and the reward.redeemed event; `result`
 * is the redemption ("createdAt" as ISO text), its entry's id and the balance after it.
 */
const redeemWrite = (source: RedeemSource): StatementWrite => ({
  ctes: sql`rw AS (
  SELECT r.id, r."costPoints" AS cost, r.name, r.stock, r.active, r."perCustomerLimit" AS lim, r."minTierId"
  FROM "Reward" r WHERE r."programId" = ${d.programId}::uuid AND r.id = ${d.rewardId}::uuid AND EXISTS (SELECT 1 FROM go)
), ${redeemRulesCtes({ programId: sql`${d.programId}::uuid`, customerId: sql`${d.customerId}::uuid` })}, gate AS (
  SELECT CASE WHEN NOT rw.active THEN 'reward_inactive'
              WHEN rw.stock IS NOT NULL AND rw.stock <= 0 THEN 'reward_out_of_stock'
              WHEN rules.why IS NOT NULL THEN rules.why
              -- A cost that is not positive is no spend of the ledger: the locked path answers it as it always did.
              WHEN rw.cost <= 0 THEN 'race'
              WHEN l.balance < rw.cost THEN 'insufficient_balance'
              WHEN EXISTS (SELECT 1 FROM "PointLot" o
                           WHERE o."programId" = ${d.programId}::uuid AND o."customerId" = ${d.customerId}::uuid
                             AND o.remaining > 0 AND ${raw(lotExpirySql("o", 'l."lastActivityAt"'))} <= ${d.now}::timestamptz) THEN 'expiry_due'
         END AS why
  FROM rw CROSS JOIN rules
  LEFT JOIN "LoyaltyData" l ON l."programId" = ${d.programId}::uuid AND l."customerId" = ${d.customerId}::uuid
), taken AS (
  UPDATE "Reward" r SET stock = r.stock - 1, "updatedAt" = ${d.now}::timestamptz
  FROM gate
  WHERE r."programId" = ${d.programId}::uuid AND r.id = ${d.rewardId}::uuid AND r.active AND r.stock > 0 AND gate.why IS NULL
  RETURNING 1
), ${changeCtes({
    programId: sql`${d.programId}::uuid`,
    customerId: sql`${d.customerId}::uuid`,
    // NULL (no change at all) unless every rule passed and a limited reward's unit was taken.
    points: sql`(SELECT -rw.cost FROM rw, gate WHERE gate.why IS NULL AND (rw.stock IS NULL OR EXISTS (SELECT 1 FROM taken)))`,
    type: sql`'redeem'`,
    reason: sql`(SELECT 'reward: ' || rw.name FROM rw)`,
    source: raw(`'${source}'`),
    actor: sql`${d.actor}::text`,
    idempotencyKey: sql`${d.idempotencyKey}::text`,
    metadata: sql`${d.ledgerMetadata}::jsonb`,
    earningFlowId: sql`NULL::uuid`,
    now: sql`${d.now}::timestamptz`,
    tier: sql`false`,
    shape: { sign: "take", tier: false },
  })}, redeemed AS (
  INSERT INTO "Redemption" ("programId", "customerId", "rewardId", code, points, "ledgerEntryId", metadata, "createdAt", lots)
  SELECT ${d.programId}::uuid, ${d.customerId}::uuid, rw.id, ${d.code}::text, rw.cost, change.entry_id, ${d.metadata}::jsonb,
         ${d.now}::timestamptz,
         -- The lots it consumed: a cancel gives back as spendable only the points of lots still live (redemption-cancel.ts).
         (SELECT jsonb_agg(jsonb_build_object('lotId', take.id, 'points', take.used)) FROM take)
  FROM change, rw
  RETURNING id, "rewardId", "customerId", code, points, metadata, ${raw(isoSql('"createdAt"'))} AS "createdAt"
), redeemed_event AS (
  INSERT INTO "Event" ("programId", type, data, "createdAt")
  SELECT ${d.programId}::uuid, 'reward.redeemed',
         jsonb_build_object('customerId', x."customerId", 'rewardId', x."rewardId", 'redemptionId', x.id, 'code', x.code, 'points', x.points),
         ${d.now}::timestamptz
  FROM redeemed x
  RETURNING 1
), result AS (
  SELECT ${d.customerId}::uuid AS "customerId", x.id, x."rewardId", x.code, x.points, x.metadata, x."createdAt",
         change.entry_id, change.balance
  FROM redeemed x, change
), refusal AS (
  SELECT CASE WHEN rw.id IS NULL THEN 'reward_not_found'
              WHEN gate.why IS NOT NULL THEN gate.why
              -- Snapshot said a unit was left, but a concurrent redemption took it first: the locked path answers.
              WHEN rw.stock IS NOT NULL AND NOT EXISTS (SELECT 1 FROM taken) THEN 'race'
              ELSE coalesce((SELECT why FROM change_refusal), 'race') END AS why
  FROM (SELECT 1) one LEFT JOIN rw ON true LEFT JOIN gate ON true
  WHERE EXISTS (SELECT 1 FROM go)
), invariant AS (
  -- A limited reward's unit and the spend together or neither (an unlimited one takes no unit); a spend always with
  -- its redemption and event.
  SELECT (SELECT ok FROM change_ok)
         AND (EXISTS (SELECT 1 FROM taken) = EXISTS (SELECT 1 FROM upd)
              OR NOT EXISTS (SELECT 1 FROM taken) AND EXISTS (SELECT 1 FROM rw WHERE rw.stock IS NULL))
         AND (NOT EXISTS (SELECT 1 FROM upd) OR (EXISTS (SELECT 1 FROM redeemed) AND EXISTS (SELECT 1 FROM redeemed_event))) AS ok
)`,
});

/** The redemption of the API's one-statement path. */
export const REDEEM_WRITE = redeemWrite("api");

/** The `result` columns the locked path reads. */
const REDEEMED = [
  "id",
  '"rewardId"',
  '"customerId"',
  "code",
  "points",
  "metadata",
  '"createdAt"',
  "entry_id",
  "balance",
];

const LOCKED_REDEEM_SQL: Record<RedeemSource, Sql> = {
  api: lockedStatement(REDEEM_WRITE, REDEEMED),
  dashboard: lockedStatement(redeemWrite("dashboard"), REDEEMED),
};

/** The values of a redemption's statement's parameters (after the keyed statement's five): a new code, the program's time. */
export const redeemValues = (input: {
  programId: string;
  customerId: string;
  rewardId: string;
  actor: string;
  metadata?: Record<string, unknown> | null;
  idempotencyKey?: string | null;
  /** The locked path's time, that of the lots it expired; else the program's clock's. */
  now?: Date;
}) =>
  REDEEM.values({
    programId: input.programId,
    customerId: input.customerId,
    rewardId: input.rewardId,
    code: redemptionCode(),
    actor: input.actor,
    metadata: input.metadata == null ? null : JSON.stringify(input.metadata),
    // Ours last, so an integrator key named rewardId cannot override it.
    ledgerMetadata: JSON.stringify({ ...(input.metadata ?? {}), rewardId: input.rewardId }),
    idempotencyKey: input.idempotencyKey ?? null,
    now: (input.now ?? programNow(input.programId)).toISOString(),
  });

/** The error of a refused redemption; null for the refusals that the locked path settles (a race, points due to expire). */
export function redeemRefusal(why: string) {
  if (why === "reward_not_found") return rewardNotFound();
  if (why === "reward_inactive") return rewardInactive();
  if (why === "reward_out_of_stock") return rewardOutOfStock();
  return redeemRuleRefusal(why) ?? changeRefusal(why);
}
