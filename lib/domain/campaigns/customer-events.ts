import "server-only";
import type { Db, RawQueries, Tx } from "@/lib/db/types";
import { AppError, validationFailed } from "@/lib/errors";
import { lockBalance } from "../balance-lock";
import { assignCoupon } from "../coupons";
import { changeBalance, changeRefusal } from "../ledger";
import { lockedStatement, runLockedWrite } from "../locked-write";
import { closeReferral } from "../referrals";
import { recalculateIfDue } from "../tiers-engine";
import { COUPON_SKIPS, evaluatorCustomer, loadCustomer, loadUses } from "./apply";
import { budgetsUsed, lockBudgets } from "./budget";
import { attrTypesOf, type AttrTypes } from "./conditions";
import { SEGMENT_ATTR, triggerType, type CampaignDefinition } from "./definition";
import { evaluate, limitWindow, type CampaignVersionState, type Evaluation } from "./evaluate";
import { LIMIT_WINDOWS } from "./definition";
import { windowKey, zonedTime } from "./schedule";
import { eventTypeAttributes } from "./store";
import { checkEventAttributes } from "./validate";
import {
  assignsCoupon,
  eventPlan,
  type EventPlan,
  perEventShape,
  readEventSnapshot,
  versionsOf,
  type AssignedCoupons,
  type CustomerEventOutcome,
  pendingOfEvaluation,
} from "./event-write";
import { pendingSettings, writePending } from "../pending-write";
import type { PendingTerms } from "../pending-rules";

const lockedEventSql = perEventShape((write) => lockedStatement(write, ["balance"]));

/**
 * A customer event in, the campaigns' effects out (API.md "Campaigns and events"): the event is checked against its
 * declared type, the active campaign versions it triggers are evaluated by the one evaluator (evaluate.ts), and
 * their effects are applied in the caller's transaction:
 * - under the customer's balance row lock (the first lock, as for every balance change), so the customer's state,
 *   its per-customer limit counters and its tier factor are exact;
 * - after locking, in id order, the triggered campaigns that have a budget (`FOR UPDATE` on their row), so the
 *   budget the evaluator sees is exact until commit: concurrent events never give more than the budget;
 * - coupons through the one assignment (coupons.ts `assignCoupon`), before the statement (their codes are part of the
 *   outcome); a referral the event's earn completes is closed before it and rewarded after it (as every earn does);
 * - then the SAME statement as the hot path (event-write.ts `perEventShape`, through `runLockedWrite`): one balance
 *   change with one `earn` entry per campaign whose metadata names the campaign, its version and the event
 *   (`campaignId`, `campaignVersion`, `campaignName`, `eventId`, `eventType`, `window`), the budgets consumed, the
 *   per-customer uses counted (each refusing to go past its limit: a bug under these locks), the event kept in the
 *   event log (`CustomerEvent`) with what the campaigns did.
 * This is the locked path of `POST …/events` (the hot path is `customerEventValues` below, handed over here for a
 * dry run, a coupon, a race or what is due), and the path for any caller in a transaction of its own.
 * A dry run evaluates the same way and writes nothing: no lock, no entry, no counter, no event row, no webhook.
 * A campaign whose points go pending (its `pendingDays` / `pending` override, else the program's setting:
 * pending-rules.ts) gives pending points instead of a ledger entry (pending-write.ts, after the statement, under the
 * same lock); its budget and per-customer use count as for any points; its effect says `pending` (also on a dry run).
 */

export interface CustomerEventInput {
  programId: string;
  customerId: string;
  type: string;
  /** Default: the program clock's now. */
  occurredAt?: Date | null;
  orderId?: string | null;
  attributes: Record<string, unknown>;
  actor: string;
  idempotencyKey?: string | null;
  dryRun: boolean;
  now: Date;
  /**
   * A dry run only (the dashboard's "try it"): this campaign's definition (a draft, or a change waiting for its
   * next version) is evaluated in place of its running version, or beside the others when it has none yet.
   */
  preview?: { campaignId: string; name: string; version: number; definition: CampaignDefinition; budgetUsed: number };
}

export type { CustomerEventOutcome, EventEffect } from "./event-write";

interface VersionRow {
  campaignId: string;
  name: string;
  version: number;
  definition: CampaignDefinition;
  attrTypes: AttrTypes;
  budgetUsed: number;
}

/** The running version of every active campaign of the program triggered by `type`, by campaign id. */
const loadVersions = (db: Db, programId: string, type: string) =>
  db.$queryRawUnsafe<VersionRow[]>(
    `SELECT c.id::text AS "campaignId", v.name, v.version, v.definition, v."attrTypes", c."budgetUsed"
     FROM "Campaign" c JOIN "CampaignVersion" v ON v."campaignId" = c.id AND v.version = c.version
     WHERE c."programId" = $1::uuid AND c.status = 'active' AND v.definition->'trigger'->>'event' = $2
     ORDER BY c.id`,
    programId,
    type,
  );

export async function recordCustomerEvent(tx: Tx, input: CustomerEventInput): Promise<CustomerEventOutcome> {
  const { programId, customerId, now } = input;
  const declared = await eventTypeAttributes(tx, programId, input.type);
  if (!declared) throw validationFailed([{ path: "type", message: "is not a declared event type" }]);
  const problems = checkEventAttributes(declared, input.attributes);
  if (problems.length) throw validationFailed(problems);
  const occurredAt = input.occurredAt ?? now;

  if (!input.dryRun) {
    await lockBalance(tx, programId, customerId);
    // The tier factor is the tier's after any period that has ended is closed (as for every earn).
    await recalculateIfDue(tx, programId, customerId, now);
  }
  const customer = await loadCustomer(tx, programId, customerId);
  if (!customer) throw new Error("customer without loyalty data");
  const rows = await loadVersions(tx, programId, input.type);
  const preview = input.dryRun ? input.preview : undefined;
  if (preview && triggerType(preview.definition.trigger) === input.type) {
    const at = rows.findIndex((r) => r.campaignId === preview.campaignId);
    const row = { ...preview, attrTypes: attrTypesOf(preview.definition.conditions, declared) };
    if (at >= 0) rows[at] = row;
    else rows.push(row);
  }
  const budgeted = rows.filter((r) => r.definition.limits.budgetPoints !== undefined).map((r) => r.campaignId);
  if (budgeted.length) {
    // Under the locks, the slices' room given back (budget.ts): the exact points given; a dry run reads them.
    const used = input.dryRun ? await budgetsUsed(tx, budgeted) : await lockBudgets(tx, budgeted);
    for (const r of rows) r.budgetUsed = used.get(r.campaignId) ?? r.budgetUsed;
  }
  const nowLocal = zonedTime(now, customer.timeZone);
  const windows = new Map<string, string>();
  for (const r of rows) {
    const w = limitWindow(r.definition, nowLocal);
    if (w !== null) windows.set(r.campaignId, w);
  }
  const uses = await loadUses(tx, programId, customerId, windows);
  const campaigns: CampaignVersionState[] = rows.map((r) => ({
    campaignId: r.campaignId,
    version: r.version,
    definition: r.definition,
    attrTypes: r.attrTypes,
    budgetUsed: r.budgetUsed,
    customerUses: uses.get(r.campaignId) ?? 0,
  }));
  const evaluation: Evaluation = evaluate({
    event: { type: input.type, occurredAt, attributes: input.attributes },
    customer: await evaluatorCustomer(tx, programId, customerId, customer, rows, now),
    campaigns,
    now,
    timeZone: customer.timeZone,
  });

  const eventView = { type: input.type, occurredAt: occurredAt.toISOString() };
  // A dry run says which points would go pending and until when: the same rule as the write below.
  const dryPending = input.dryRun
    ? pendingOfEvaluation(
        evaluation,
        new Map(rows.map((r) => [r.campaignId, r])),
        await pendingSettings(tx, programId),
        now,
      )
    : new Map();
  const pendingView = (t: PendingTerms | undefined) =>
    t ? { id: null, maturesAt: t.maturesAt?.toISOString() ?? null } : null;
  if (input.dryRun)
    return {
      event: { id: null, ...eventView },
      effects: evaluation.applied.flatMap((a) =>
        a.effects.map((e) => ({
          campaignId: a.campaignId,
          campaignVersion: a.version,
          type: e.type,
          points: "points" in e ? e.points : null,
          couponCode: null,
          transactionId: null,
          pending: pendingView(dryPending.get(a.campaignId)),
        })),
      ),
      balance: customer.balance,
      skipped: evaluation.skipped,
    };

  // Coupons first, in this transaction (the statement cannot draw them): their codes are part of the outcome.
  let coupons: AssignedCoupons | null = null;
  if (assignsCoupon(evaluation)) {
    coupons = new Map();
    for (const applied of evaluation.applied)
      for (const e of applied.effects) {
        if (e.type !== "assign_coupon") continue;
        let code: string | null = null;
        try {
          code = (await assignCoupon(tx, { programId, customerId, couponPoolId: e.couponPoolId })).code;
        } catch (err) {
          // A pool with no free code (or switched off since) gives nothing; the campaign's other effects stand.
          if (!(err instanceof AppError) || !COUPON_SKIPS.has(err.code)) throw err;
        }
        coupons.set(applied.campaignId, [...(coupons.get(applied.campaignId) ?? []), code]);
      }
  }
  const versions = new Map(rows.map((r) => [r.campaignId, r]));
  // The campaigns whose points go pending (their override, else the program's setting): written as pending points.
  const pending = pendingOfEvaluation(evaluation, versions, await pendingSettings(tx, programId), now);
  const eventInput = {
    ...input,
    occurredAt,
    orderId: input.orderId ?? null,
    idempotencyKey: input.idempotencyKey ?? null,
  };
  const plan = eventPlan(eventInput, evaluation, versions, coupons, undefined, undefined, pending);
  // The event's earn closes the customer's open referral when it qualifies, then rewards both sides after it.
  const referral =
    plan.total > 0 ? await closeReferral(tx, { programId, customerId, source: "api", now, points: plan.total }) : null;
  const done = await runLockedWrite(tx, lockedEventSql(plan.shape), plan.values);
  if ("refusal" in done) {
    if (done.refusal === "missing") throw new Error("customer without loyalty data");
    throw changeRefusal(done.refusal) ?? new Error(`customer event refused under the row lock: ${done.refusal}`);
  }
  for (const p of plan.pendingEntries)
    await writePending(
      tx,
      {
        programId,
        customerId,
        points: p.points,
        type: "earn",
        source: "api",
        actor: input.actor,
        reason: p.reason,
        metadata: p.metadata as Record<string, unknown>,
        orderId: eventInput.orderId,
        now,
      },
      p.terms,
      p.id,
    );
  if (referral) await referral.reward((award) => changeBalance(tx, award));
  return { event: plan.event, effects: plan.effects, balance: Number(done.row.balance), skipped: plan.skipped };
}

/** The time zone last seen per program, to ask the snapshot for the use counters of now's windows in one read. */
const ZONES = new Map<string, string>();

const windowsAt = (now: Date, timeZone: string) => {
  const local = zonedTime(now, timeZone);
  return LIMIT_WINDOWS.map((w) => windowKey(w, local));
};

/**
 * The hot path of an event (the route's one statement, lib/api/one-statement.ts): one read of the customer (by
 * e-mail), the declaration, the active campaigns and the use counters (`readEventSnapshot`); the versions from their
 * cache (`versionsOf`); the one evaluator; then the values of the one statement (`perEventShape`), which applies the
 * decision only if nothing it read has changed meanwhile. Null when the locked path must take the event: no such
 * customer (its lookup answers 404), an event that does not fit its declaration (the locked path checks a replay of
 * the key first, then answers 400 by path), a dry run, or an event that assigns a coupon.
 */
export async function customerEventValues(
  db: RawQueries,
  input: Omit<CustomerEventInput, "customerId"> & { email: string },
): Promise<EventPlan | null> {
  if (input.dryRun) return null;
  const { programId, now } = input;
  let zone = ZONES.get(programId) ?? "UTC";
  let snap = await readEventSnapshot(db, programId, input.email, input.type, windowsAt(now, zone));
  if (snap && snap.timeZone !== zone) {
    ZONES.set(programId, (zone = snap.timeZone));
    snap = await readEventSnapshot(db, programId, input.email, input.type, windowsAt(now, zone));
  }
  if (!snap || !snap.declared || checkEventAttributes(snap.declared, input.attributes).length) return null;
  const occurredAt = input.occurredAt ?? now;
  const budgetUsed = new Map(snap.campaigns.map(([id, , used]) => [id, used]));
  const all = await versionsOf(
    db,
    snap.campaigns.map(([campaignId, version]) => ({ campaignId, version })),
  );
  const triggered = all.filter((v) => triggerType(v.definition.trigger) === input.type);
  // Segment membership is computed under the locked path's transaction (segments/store.ts), not in the snapshot.
  if (triggered.some((v) => SEGMENT_ATTR in v.attrTypes)) return null;
  const nowLocal = zonedTime(now, zone);
  const campaigns: CampaignVersionState[] = triggered.map((v) => {
    const window = limitWindow(v.definition, nowLocal);
    const use = window === null ? undefined : snap.uses.find(([id, w]) => id === v.campaignId && w === window);
    return { ...v, budgetUsed: budgetUsed.get(v.campaignId) ?? 0, customerUses: use ? use[2] : 0 };
  });
  const evaluation = evaluate({
    event: { type: input.type, occurredAt, attributes: input.attributes },
    customer: {
      tier: snap.tier,
      tierFactor: snap.factor,
      balance: snap.balance,
      memberSince: new Date(snap.memberSince),
      language: snap.language,
      custom: snap.customAttributes,
    },
    campaigns,
    now,
    timeZone: zone,
  });
  if (assignsCoupon(evaluation)) return null;
  // Points that go pending are written by the locked path (pending-write.ts), as an increase's are.
  const versions = new Map(triggered.map((v) => [v.campaignId, v]));
  if (pendingOfEvaluation(evaluation, versions, snap, now).size) return null;
  const plan = eventPlan(
    {
      ...input,
      customerId: snap.customerId,
      occurredAt,
      orderId: input.orderId ?? null,
      idempotencyKey: input.idempotencyKey ?? null,
    },
    evaluation,
    versions,
    null,
    undefined,
    new Map(snap.campaigns.map(([id, , , counted]) => [id, counted])),
  );
  return plan;
}
