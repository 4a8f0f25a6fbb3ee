import "server-only";
import type { Tx } from "@/lib/db/types";
import type { Sql } from "@/lib/db/sql";
import { isLostRace } from "@/lib/db/statement";
import {
  keyedParams,
  keyedStatement,
  runStatement,
  type StatementRow,
  type StatementWrite,
} from "@/lib/db/keyed-statement";

/**
 * A one-statement write's CTEs (`StatementWrite`) run by its locked path: in the caller's transaction, after the
 * caller took the write's locks in their order and settled what is due, so that the decision (refusals, effects,
 * the answer's data) is the statement's on both paths. No Idempotency-Key: the slot's parameters are null, so `go`
 * has its row and nothing is stored. `extras` names the `result` columns the caller reads.
 */
export const lockedStatement = (write: StatementWrite, extras: string[]) => keyedStatement({ ...write, extras });

/**
 * Runs a `lockedStatement` (its values after the slot's): the `result` row, or the refusal. Everything the statement
 * reads is locked, so nothing can overtake it: a lost race (`race`, or its `invariant` failing) is a bug, thrown.
 */
export async function runLockedWrite(
  tx: Tx,
  statement: Sql,
  values: unknown[],
): Promise<{ row: StatementRow } | { refusal: string }> {
  let result;
  try {
    result = await runStatement(tx, null, () =>
      tx.$queryRawUnsafe<StatementRow[]>(statement.text, ...keyedParams(null), ...values),
    );
  } catch (err) {
    if (isLostRace(err)) throw new Error("a locked write was overtaken", { cause: err });
    throw err;
  }
  if ("outcome" in result) return { row: result.row };
  if (result.refusal === "race") throw new Error("a locked write refused with a race");
  return result;
}
