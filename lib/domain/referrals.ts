import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import {
  referralAfterFirstEarn,
  referralAlreadyRecorded,
  referralCodeUnknown,
  referralSelf,
  validationFailed,
} from "@/lib/errors";
import type { BalanceChange } from "./balance-change";
import { lockBalance } from "./balance-lock";
import { emitEvents } from "./events";
import { requireProgram } from "./programs";
import { programNow } from "./clock";
import { getCustomerJsonById } from "./customer-read";
import { linkTemplateProblem, normaliseReferralCode, referralLink } from "./referral-rules";

/**
 * The one place for referrals (docs/integrating.md "Referrals"). Every customer has a referral code
 * (Customer.referralCode, given by the database at insert: migration `referrals`); `loyaltyData.referralLink` is the
 * program's link template with it. A referral is recorded for a customer before their first earn (`recordReferral`: the
 * batch's `payload.referralCode` or POST …/customers/{email}/referral); the customer's `referral` field then holds the
 * referrer's code. Their first qualifying earn completes it (`closeReferral`, called by ledger.ts `changeBalance` in
 * the earn's transaction; the one-statement path hands such earns over as `referral_due`): both sides get the program's
 * points as `earn` entries with reason "referral", once, and `referralEarned` becomes true.
 *
 * Policies: a qualifying earn is an `earn` of at least the program's minimum points from the API, the dashboard's
 * API-equivalent paths or an earning flow; the system's own earns (the referral points) never qualify, so they never
 * complete the receiver's own open referral. The referral points are earns and count towards tiers like every earn
 * (API.md §4). The earn's answer carries its own entry and balance; the referral points are entries of their own
 * written just after it in the same transaction. A referrer over the program's
 * cap (rewarded referrals in the last N days) still has the referral recorded and completed, the referred customer
 * still gets their points, the referrer gets none (`capped`). An erased referrer's code stops working; their open
 * referrals still reward the referred customer, and the referrer nothing.
 */

/** The `reason` of the referral earns (source `system`). */
export const REFERRAL_REASON = "referral";

/** The settings of a program's referrals (dashboard card, CLI). */
export const REFERRAL_SETTINGS = {
  referralLinkTemplate: true,
  referralReferrerPoints: true,
  referralReferredPoints: true,
  referralMinEarnPoints: true,
  referralCapCount: true,
  referralCapDays: true,
} as const;

export interface ReferralSettings {
  referralLinkTemplate: string | null;
  referralReferrerPoints: number;
  referralReferredPoints: number;
  referralMinEarnPoints: number;
  referralCapCount: number | null;
  referralCapDays: number;
}

export const getReferralSettings = (db: Db, programId: string): Promise<ReferralSettings> =>
  requireProgram(db, programId, REFERRAL_SETTINGS);

export async function updateReferralSettings(db: Db, programId: string, changes: Partial<ReferralSettings>) {
  const template = changes.referralLinkTemplate;
  if (template) {
    const problem = linkTemplateProblem(template);
    if (problem) throw validationFailed([{ path: "referralLinkTemplate", message: problem }]);
  }
  await requireProgram(db, programId);
  return db.program.update({ where: { id: programId }, data: changes, select: REFERRAL_SETTINGS });
}

/**
 * Records that `referredId` was referred by the owner of `code`, before the referred customer's first earn.
 * Idempotent: the same code again changes nothing. Refusals (each with `path`, the field that carried the code):
 * 400 `referral_code_unknown`, 400 `referral_self` (their own code, or a loop: the referrer was referred by them,
 * directly or not), 409 `referral_already_recorded` (another code), 409 `referral_after_first_earn`.
 *
 * Both customers' balance rows are locked, in id order, before anything is read: a concurrent claim in the other
 * direction then sees this one (no loop can form), and the referred row is also bumped so that an earn's
 * one-statement path that read the customer before this commit takes the locked path (its xmin guard) and sees the
 * referral. Returns whether a referral was recorded now.
 */
export async function recordReferral(
  tx: Tx,
  programId: string,
  referredId: string,
  code: string,
  path = "code",
): Promise<{ recorded: boolean }> {
  const given = normaliseReferralCode(code);
  const [referrer] = await tx.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id FROM "Customer" WHERE "programId" = $1::uuid AND "referralCode" = $2 AND "deletedAt" IS NULL`,
    programId,
    given,
  );
  if (!referrer) throw referralCodeUnknown(path);
  if (referrer.id === referredId) throw referralSelf(path, "is the customer's own code");
  const now = programNow(programId);
  for (const id of [referrer.id, referredId].sort()) await lockBalance(tx, programId, id);
  await tx.$executeRawUnsafe(
    `UPDATE "LoyaltyData" SET "updatedAt" = $3::timestamptz WHERE "programId" = $1::uuid AND "customerId" = $2::uuid`,
    programId,
    referredId,
    now.toISOString(),
  );
  const [existing] = await tx.$queryRawUnsafe<{ referrerId: string }[]>(
    `SELECT "referrerId" FROM "Referral" WHERE "referredId" = $1::uuid`,
    referredId,
  );
  if (existing) {
    if (existing.referrerId === referrer.id) return { recorded: false };
    throw referralAlreadyRecorded(path);
  }
  const [state] = await tx.$queryRawUnsafe<{ earned: boolean; loop: boolean }[]>(
    REFERRAL_STATE_SQL,
    referredId,
    referrer.id,
  );
  if (state?.earned) throw referralAfterFirstEarn(path);
  if (state?.loop) throw referralSelf(path, "belongs to a customer this customer referred");
  await tx.referral.create({ data: { programId, referrerId: referrer.id, referredId, code: given, createdAt: now } });
  await tx.customer.update({ where: { id: referredId }, data: { referral: given, updatedAt: now } });
  return { recorded: true };
}

/** $1 the referred customer, $2 the referrer: whether $1 has earned, and whether $1 is up $2's chain of referrers. */
const REFERRAL_STATE_SQL = `
WITH RECURSIVE up AS (
  SELECT r."referrerId" FROM "Referral" r WHERE r."referredId" = $2::uuid
  UNION
  SELECT r."referrerId" FROM "Referral" r JOIN up ON r."referredId" = up."referrerId"
)
SELECT EXISTS (SELECT 1 FROM "LedgerEntry" e WHERE e."customerId" = $1::uuid AND e.type = 'earn' AND e.points > 0) AS earned,
       EXISTS (SELECT 1 FROM up WHERE up."referrerId" = $1::uuid) AS loop`;

interface OpenReferral {
  id: string;
  referrerId: string;
  referredId: string;
  referrerLive: boolean;
  referralReferrerPoints: number;
  referralReferredPoints: number;
  referralMinEarnPoints: number;
  referralCapCount: number | null;
  referralCapDays: number;
}

/** The customer's open referral (locked) with the program's settings. */
const OPEN_REFERRAL_SQL = `
SELECT r.id, r."referrerId", r."referredId", (c."deletedAt" IS NULL) AS "referrerLive",
       p."referralReferrerPoints", p."referralReferredPoints", p."referralMinEarnPoints", p."referralCapCount", p."referralCapDays"
FROM "Referral" r JOIN "Program" p ON p.id = r."programId" JOIN "Customer" c ON c.id = r."referrerId"
WHERE r."programId" = $1::uuid AND r."referredId" = $2::uuid AND r."completedAt" IS NULL
FOR UPDATE OF r`;

/** Rewarded referrals of a referrer in the cap's window ending at $3. */
const REWARDED_IN_WINDOW_SQL = `
SELECT count(*)::int AS n FROM "Referral"
WHERE "programId" = $1::uuid AND "referrerId" = $2::uuid AND NOT capped
  AND "completedAt" > $3::timestamptz - make_interval(days => $4::int)`;

/**
 * The earn that may complete a referral: a balance change, or (`points: null`) an earn whose statement found that
 * it qualifies (`referral_due`, ledger.ts `changeCtes`), under the earning customer's row lock.
 */
export type ReferralTrigger = Pick<BalanceChange, "programId" | "customerId" | "source" | "now"> & {
  points: number | null;
};

/**
 * The first half of a referral's completion, on the locked path before a qualifying earn's statement (ledger.ts
 * `changeBalance`, under the earning customer's row lock): closes the customer's open referral when `change`
 * qualifies (an earn of at least the program's minimum points, not the system's own: referral points never qualify),
 * deciding each side's points; the statement then goes ahead (its `referral_due` case sees nothing open). Returns
 * the second half, `reward`, for after the earn: both sides' earns (through `earn`, the ledger's `changeBalance`
 * handed in by its caller: the system's earns, so they close nothing), `referralEarned` and the events. Null when
 * nothing completes.
 *
 * The referrer's row is locked before their cap is counted, so concurrent completions of one referrer's referrals
 * count each other. Lock order: the referred customer, then the referrer (no loops: `recordReferral`).
 */
export async function closeReferral(
  tx: Tx,
  change: ReferralTrigger,
): Promise<{ reward: (earn: (award: BalanceChange) => Promise<unknown>) => Promise<void> } | null> {
  if (change.source === "system") return null;
  const [open] = await tx.$queryRawUnsafe<OpenReferral[]>(OPEN_REFERRAL_SQL, change.programId, change.customerId);
  if (!open || (change.points !== null && change.points < open.referralMinEarnPoints)) return null;
  const now = change.now ?? programNow(change.programId);
  let capped = false;
  if (open.referrerLive) {
    await lockBalance(tx, change.programId, open.referrerId);
    if (open.referralCapCount !== null) {
      const [rewarded] = await tx.$queryRawUnsafe<{ n: number }[]>(
        REWARDED_IN_WINDOW_SQL,
        change.programId,
        open.referrerId,
        now.toISOString(),
        open.referralCapDays,
      );
      capped = (rewarded?.n ?? 0) >= open.referralCapCount;
    }
  }
  const referrerPoints = open.referrerLive && !capped ? open.referralReferrerPoints : 0;
  const referredPoints = open.referralReferredPoints;
  await tx.$executeRawUnsafe(
    `UPDATE "Referral" SET "completedAt" = $2::timestamptz, capped = $3, "referrerPoints" = $4, "referredPoints" = $5
     WHERE id = $1::uuid`,
    open.id,
    now.toISOString(),
    capped,
    referrerPoints,
    referredPoints,
  );
  const reward = async (earn: (award: BalanceChange) => Promise<unknown>) => {
    const award = (customerId: string, points: number) =>
      earn({
        programId: change.programId,
        customerId,
        points,
        type: "earn",
        source: "system",
        actor: "system",
        reason: REFERRAL_REASON,
        metadata: { referralId: open.id },
        now,
      });
    await tx.customer.update({ where: { id: open.referredId }, data: { referralEarned: true, updatedAt: now } });
    if (referredPoints > 0) await award(open.referredId, referredPoints);
    if (referrerPoints > 0) await award(open.referrerId, referrerPoints);
    const common = { referralId: open.id, referrerId: open.referrerId, referredId: open.referredId };
    await emitEvents(
      tx,
      change.programId,
      [
        {
          type: "referral.completed",
          data: { ...common, customerId: open.referredId, side: "referred", points: referredPoints, capped: false },
        },
        ...(open.referrerLive
          ? [
              {
                type: "referral.completed" as const,
                data: { ...common, customerId: open.referrerId, side: "referrer", points: referrerPoints, capped },
              },
            ]
          : []),
      ],
      now,
    );
  };
  return { reward };
}

/** One side of a customer's referrals, for the dashboard's customer page. */
export interface ReferralRow {
  id: string;
  customerId: string;
  email: string | null;
  code: string;
  createdAt: Date;
  completedAt: Date | null;
  points: number;
  capped: boolean;
}

/**
 * The customer's own code and link, who referred them (null: nobody) and the customers they referred (newest first, at
 * most `limit`) with the counts of all of them.
 */
export async function customerReferrals(db: Db, programId: string, customerId: string, limit = 50) {
  const [own, by, made, counts] = await Promise.all([
    db.customer.findFirst({
      where: { programId, id: customerId },
      select: { referralCode: true, program: { select: { referralLinkTemplate: true } } },
    }),
    db.referral.findFirst({
      where: { programId, referredId: customerId },
      select: {
        id: true,
        code: true,
        createdAt: true,
        completedAt: true,
        referredPoints: true,
        referrerId: true,
        referrer: { select: { email: true } },
      },
    }),
    db.referral.findMany({
      where: { programId, referrerId: customerId },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit,
      select: {
        id: true,
        code: true,
        createdAt: true,
        completedAt: true,
        referrerPoints: true,
        capped: true,
        referredId: true,
        referred: { select: { email: true } },
      },
    }),
    db.referral.groupBy({
      by: ["programId"],
      where: { programId, referrerId: customerId },
      _count: { _all: true, completedAt: true },
      _sum: { referrerPoints: true },
    }),
  ]);
  const referredBy: ReferralRow | null = by && {
    id: by.id,
    customerId: by.referrerId,
    email: by.referrer.email,
    code: by.code,
    createdAt: by.createdAt,
    completedAt: by.completedAt,
    points: by.referredPoints,
    capped: false,
  };
  const referred: ReferralRow[] = made.map((r) => ({
    id: r.id,
    customerId: r.referredId,
    email: r.referred.email,
    code: r.code,
    createdAt: r.createdAt,
    completedAt: r.completedAt,
    points: r.referrerPoints,
    capped: r.capped,
  }));
  const total = counts[0];
  return {
    code: own?.referralCode ?? null,
    link: referralLink(own?.program.referralLinkTemplate ?? null, own?.referralCode ?? null),
    referredBy,
    referred,
    made: total?._count._all ?? 0,
    completed: total?._count.completedAt ?? 0,
    pointsEarned: total?._sum.referrerPoints ?? 0,
  };
}

/** POST …/customers/{email}/referral: records the referral, then answers the Customer (spec §2.1) as JSON text. */
export async function referralOfCustomerJson(tx: Tx, programId: string, customerId: string, code: string) {
  await recordReferral(tx, programId, customerId, code);
  const body = await getCustomerJsonById(tx, programId, customerId);
  if (!body) throw new Error(`customer ${customerId} vanished inside its own transaction`);
  return body;
}
