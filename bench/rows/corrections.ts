/**
 * Corrections (issue 11): reversing a ledger entry and refunding an order, next to increase measured on the same
 * server in the same run. Both take the locked path (a transaction with the customer's row lock) where increase
 * takes the one-statement hot path, so the rows report their ratio to increase rather than a target. Afterwards
 * balance = Σ ledger = Σ lots for every customer, and no entry is reversed beyond its points.
 */
import { CONNECTIONS, WARMUP } from "../config";
import { clean, type Context } from "../context";
import { log } from "../lifecycle";
import { measure, ratioOf, type LoadRequest } from "../load";
import { brokenBalances } from "../setup";

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
/** Points of each entry reversed: 1 point per request, so no entry runs out within a row. */
const ENTRY_POINTS = 1_000_000;
const SECONDS = 10;

export async function correctionRows(ctx: Context) {
  const { sql, work } = ctx;
  const { programId } = work.program;
  const customers = work.emails.slice(0, 200);
  log(
    `corrections: one ${ENTRY_POINTS.toLocaleString("en")}-point earn with an orderId for ${customers.length} customers`,
  );
  const tag = Math.random().toString(36).slice(2, 7);
  const entries: { email: string; id: string; orderId: string }[] = [];
  for (const [i, email] of customers.entries()) {
    const orderId = `bench-${tag}-${i}`;
    const res = await fetch(`${ctx.ours.baseUrl}${work.base}/customers/${encodeURIComponent(email)}/balance/increase`, {
      method: "POST",
      headers: work.headers,
      body: JSON.stringify({ points: ENTRY_POINTS, orderId }),
    });
    if (res.status !== 200) throw new Error(`corrections set-up: increase answered ${res.status}`);
    const body = (await res.json()) as { transaction: { id: string } };
    entries.push({ email, id: body.transaction.id, orderId });
  }

  const increase = await measure(ctx.ours.baseUrl, work.increase(false, customers), CONNECTIONS, SECONDS, WARMUP);
  const reverse: LoadRequest = {
    method: "POST",
    headers: work.headers,
    setupRequest: (req) => {
      const e = pick(entries);
      return {
        ...req,
        path: `${work.base}/customers/${encodeURIComponent(e.email)}/transactions/${e.id}/reverse`,
        body: JSON.stringify({ points: 1, reason: "bench" }),
      };
    },
  };
  const reversed = await measure(ctx.ours.baseUrl, reverse, CONNECTIONS, SECONDS, WARMUP);
  const refund: LoadRequest = {
    method: "POST",
    headers: work.headers,
    setupRequest: (req) => ({
      ...req,
      path: `${work.base}/orders/${encodeURIComponent(pick(entries).orderId)}/refund`,
      body: JSON.stringify({ amount: 1, total: ENTRY_POINTS, reason: "bench" }),
    }),
  };
  const refunded = await measure(ctx.ours.baseUrl, refund, CONNECTIONS, SECONDS, WARMUP);

  const broken = await brokenBalances(sql, programId);
  const { rows: over } = await sql.query(
    `SELECT count(*)::int AS n FROM "LedgerEntry" e WHERE e."programId" = $1 AND abs(e.points) <
       (SELECT coalesce(sum((r.metadata->>'requested')::int), 0) FROM "LedgerEntry" r WHERE r."programId" = $1 AND r."reversesId" = e.id)`,
    [programId],
  );
  const sound = broken.length === 0 && over[0].n === 0;
  const reference = [{ label: "increase (same server, no key)", figures: increase }];
  ctx.add({
    family: "corrections",
    name: "POST …/transactions/{id}/reverse (1 point)",
    load: String(CONNECTIONS),
    ours: reversed,
    refs: reference,
    ratio: ratioOf(reversed, increase),
    ratioOf: "increase",
    target: "balance = Σ ledger = Σ lots; reversals within each entry",
    pass: sound && clean(reversed),
  });
  ctx.add({
    family: "corrections",
    name: "POST /orders/{orderId}/refund (1 point's share)",
    load: String(CONNECTIONS),
    ours: refunded,
    refs: reference,
    ratio: ratioOf(refunded, increase),
    ratioOf: "increase",
    target: "balance = Σ ledger = Σ lots; reversals within each entry",
    pass: sound && clean(refunded),
  });
}
