import "server-only";
import type { HotDb } from "@/lib/db/types";
import { isLostRace } from "@/lib/db/statement";
import {
  keyedParams,
  keyedStatement,
  runStatement,
  type Outcome,
  type OutcomeSlot,
  type StatementAnswer,
  type StatementRow,
} from "@/lib/db/keyed-statement";
import { uniqueOr409 } from "@/lib/errors";
import { raw, sql } from "@/lib/db/sql";
import { changeRefusal, changeValues, changeWrite, shapeKey, type CustomerByEmail } from "@/lib/domain/ledger";
import type { BalanceChange } from "@/lib/domain/balance-change";
import { REDEEM_WRITE, redeemRefusal, redeemValues } from "@/lib/domain/rewards";
import { earningFlowRunValues } from "@/lib/domain/earning-flows";
import { ASSIGN_WRITE, assignCouponRefusal, assignCouponValues } from "@/lib/domain/coupons";
import { EVENT_ANSWER_BODY, FLOW_ANSWER_BODY, perEventShape } from "@/lib/domain/campaigns/event-write";
import { customerEventValues } from "@/lib/domain/campaigns/customer-events";
import { writeEvent } from "./event-batches";
import { BATCH_WRITE, externalIdTaken, userBatchValues, type IntegrationBatchItem } from "@/lib/domain/customers";

/**
 * The /v1 writes that act in ONE statement with their Idempotency-Key record (the routes' `statement`,
 * lib/api/route-factories.ts): the domain gives each write's CTEs, its values and which of its refusals are answers;
 * here each gets its HTTP answer, the status and the body the locked path (`run`) would give.
 */

/** A write to try in one keyed statement: its text, the values after the key's, and its refusals that are errors. */
interface OneStatementWrite {
  sql: string;
  values: unknown[];
  /** The error a refusal answers with; null for a refusal that the locked path settles (a race, something due). */
  refusal: (why: string) => Error | null;
}

/**
 * Tries a write in one statement: its outcome, or null when the request must take the locked path (`run` in a
 * transaction): a concurrent write overtook the statement, or it refused for a reason that path settles.
 */
async function inOneStatement(database: HotDb, slot: OutcomeSlot | null, write: OneStatementWrite) {
  let result;
  try {
    result = await runStatement(database.prisma, slot, () =>
      database.raw.$queryRawUnsafe<StatementRow[]>(write.sql, ...keyedParams(slot), ...write.values),
    );
  } catch (err) {
    if (isLostRace(err)) return null;
    throw err;
  }
  if ("outcome" in result) return result.outcome;
  const error = write.refusal(result.refusal);
  if (error) throw error;
  return null;
}

const jsonText = (expr: string) => raw(`coalesce(to_json(${expr})::text, 'null')`);

/** 200 `{ balance, transaction }`. */
const CHANGE_ANSWER: StatementAnswer = {
  status: 200,
  body: sql`'{"balance":' || r.balance || ',"transaction":' || r.entry || '}'`,
};

const CHANGE_STATEMENTS = new Map<string, string>();

/** The statement of a balance change (the values: `changeArgs`): the one of its shape. */
export const changeSql = (change: Pick<BalanceChange, "type" | "points">): string => {
  const { shape, key } = shapeKey(change);
  let sql = CHANGE_STATEMENTS.get(key);
  if (!sql) CHANGE_STATEMENTS.set(key, (sql = keyedStatement(changeWrite(shape), CHANGE_ANSWER).text));
  return sql;
};

/** The arguments of `changeSql`'s statement: the slot's, then the change's. */
export const changeArgs = (change: BalanceChange | CustomerByEmail<BalanceChange>, slot: OutcomeSlot | null) => [
  ...keyedParams(slot),
  ...changeValues(change),
];

/** A balance change (increase, decrease). */
export const changeBalanceInOneStatement = (
  database: HotDb,
  change: BalanceChange | CustomerByEmail<BalanceChange>,
  slot: OutcomeSlot | null,
): Promise<Outcome | null> =>
  inOneStatement(database, slot, { sql: changeSql(change), values: changeValues(change), refusal: changeRefusal });

/** 201 `{ redemption, balance }`, the redemption active. */
const REDEEM_SQL = keyedStatement(REDEEM_WRITE, {
  status: 201,
  body: sql`'{"redemption":{"id":' || ${jsonText("r.id")} || ',"rewardId":' || ${jsonText('r."rewardId"')}
           || ',"customerId":' || ${jsonText('r."customerId"')} || ',"code":' || ${jsonText("r.code")}
           || ',"points":' || r.points || ',"transactionId":' || ${jsonText("r.entry_id")}
           || ',"metadata":' || coalesce(r.metadata::text, 'null') || ',"createdAt":' || ${jsonText('r."createdAt"')}
           || ',"status":"active","cancelledAt":null,"cancelReason":null},"balance":' || r.balance || '}'`,
}).text;

/** A redemption of a reward. */
export const redeemRewardInOneStatement = (
  database: HotDb,
  input: Parameters<typeof redeemValues>[0],
  slot: OutcomeSlot | null,
): Promise<Outcome | null> =>
  inOneStatement(database, slot, { sql: REDEEM_SQL, values: redeemValues(input), refusal: redeemRefusal });

/**
 * 200 `{ pointsEarned, balance, transaction, capped }`: an earning flow's run is the campaign engine's write
 * (`perEventShape`) with the flow's answer.
 */
const runSql = perEventShape((write) => keyedStatement(write, { status: 200, body: FLOW_ANSWER_BODY }).text);

/** A run of an earning flow, after one read of the flow, the customer and the flow's uses, and the engine's decision. */
export async function executeEarningFlowInOneStatement(
  database: HotDb,
  input: Parameters<typeof earningFlowRunValues>[1],
  slot: OutcomeSlot | null,
): Promise<Outcome | null> {
  // Null: the run's points go pending, the locked path's work.
  const plan = await earningFlowRunValues(database.prisma, input);
  if (!plan) return null;
  return inOneStatement(database, slot, { sql: runSql(plan.shape), values: plan.values, refusal: changeRefusal });
}

/** 200 `{ event, effects, balance, skipped }`: the statement of an event's shape (bench/baseline-server.ts runs it too). */
export const eventSql = perEventShape((write) => keyedStatement(write, { status: 200, body: EVENT_ANSWER_BODY }).text);

/**
 * A customer event against the program's campaigns, after one snapshot read and the evaluation (null: the locked
 * path, see `customerEventValues`).
 */
export async function recordCustomerEventInOneStatement(
  database: HotDb,
  input: Parameters<typeof customerEventValues>[1],
  slot: OutcomeSlot | null,
): Promise<Outcome | null> {
  const plan = await customerEventValues(database.raw, input);
  if (!plan) return null;
  return writeEvent(database, slot, plan, () =>
    inOneStatement(database, slot, { sql: eventSql(plan.shape), values: plan.values, refusal: changeRefusal }),
  );
}

/** 201 `{ coupon }`. */
const ASSIGN_SQL = keyedStatement(ASSIGN_WRITE, {
  status: 201,
  body: sql`'{"coupon":{"code":' || ${jsonText("r.code")} || ',"couponPoolId":' || ${jsonText('r."couponPoolId"')}
           || ',"assignedAt":' || ${jsonText('r."assignedAt"')} || ',"expiresAt":' || ${jsonText('r."expiresAt"')} || '}}'`,
}).text;

/** A coupon assigned from a pool. */
export const assignCouponInOneStatement = (
  database: HotDb,
  input: Parameters<typeof assignCouponValues>[0],
  slot: OutcomeSlot | null,
): Promise<Outcome | null> =>
  inOneStatement(database, slot, { sql: ASSIGN_SQL, values: assignCouponValues(input), refusal: assignCouponRefusal });

/** 201 with no body. */
const BATCH_SQL = keyedStatement(BATCH_WRITE, { status: 201, body: sql`NULL::text` }).text;

/** A Create/Update batch, when it can be applied in one statement (null: the locked path). */
export async function applyIntegrationBatchInOneStatement(
  database: HotDb,
  programId: string,
  items: IntegrationBatchItem[],
  slot: OutcomeSlot | null,
): Promise<Outcome | null> {
  const values = await userBatchValues(database.prisma, programId, items);
  if (!values) return null;
  return uniqueOr409(
    () => inOneStatement(database, slot, { sql: BATCH_SQL, values, refusal: () => null }),
    externalIdTaken,
    "externalCustomerId",
  );
}
