import type { Db, Tx } from "@/lib/db/types";
import { AppError, customerNotFound, notFound } from "@/lib/errors";
import { applyUserBatch } from "@/lib/domain/customers";
import { deleteCustomers } from "@/lib/domain/deletion";
import { decreaseBalance, increaseBalance } from "@/lib/domain/points";
import { createTier } from "@/lib/domain/tiers";
import { createApiKey, revokeApiKey } from "@/lib/domain/api-keys";
import { createReward, redeemReward, updateReward } from "@/lib/domain/rewards";
import { assignCoupon, createCouponPool, importCoupons } from "@/lib/domain/coupons";
import { createEarningFlow } from "@/lib/domain/earning-flows";
import { sendNotification } from "@/lib/domain/notifications";
import { audited } from "./audit";
import { authorize, isUuid, type StaffContext } from "./authz";
import type {
  ApiKeyForm,
  BalanceAdjustment,
  CouponForm,
  CouponImportChunk,
  CouponPoolForm,
  EarningFlowForm,
  NotificationForm,
  RedeemForm,
  RewardForm,
  RewardUpdate,
  TierForm,
  UserDataEdit,
} from "./forms";

/**
 * Every staff write, one function each: authorise by role, act through the same domain functions as the
 * API, and audit (before → after) in the same transaction. Route handlers in app/api/staff only parse and
 * call these, so a forged request meets exactly the same checks as a click. Inputs are already validated
 * with the schemas of lib/staff/forms.ts.
 */

const actorId = (staff: StaffContext) => `staff:${staff.staffId}`;

const USER_FIELDS = { externalCustomerId: true, firstName: true, lastName: true, phone: true, birthdate: true, emailVerified: true } as const;

/** A live customer of the staff member's program (never another program's), with its user data. */
async function customerIn(db: Db, staff: StaffContext, customerId: string) {
  if (!isUuid(customerId)) throw customerNotFound();
  const customer = await db.customer.findFirst({
    where: { id: customerId, programId: staff.programId, deletedAt: null },
    select: { id: true, email: true, userData: { select: USER_FIELDS } },
  });
  if (!customer?.email) throw customerNotFound();
  return { id: customer.id, email: customer.email, ...customer.userData };
}

export async function updateCustomer(tx: Tx, staff: StaffContext, customerId: string, input: UserDataEdit) {
  authorize(staff, "customers.edit");
  const before = await customerIn(tx, staff, customerId);
  const { birthdate, ...payload } = input;
  await applyUserBatch(tx, staff.programId, [{ email: before.email, feature: "user", payload }]);
  if (birthdate !== undefined) await tx.userData.update({ where: { customerId }, data: { birthdate } });
  const after = await customerIn(tx, staff, customerId);
  await audited(tx, staff, "customer.update", { type: "customer", id: customerId }, before, after);
  return after;
}

export async function adjustBalance(tx: Tx, staff: StaffContext, customerId: string, input: BalanceAdjustment) {
  authorize(staff, "balance.adjust");
  await customerIn(tx, staff, customerId);
  const move = { programId: staff.programId, customerId, points: Math.abs(input.points), reason: input.reason, source: "dashboard" as const, actor: actorId(staff) };
  const result = input.points > 0 ? await increaseBalance(tx, move) : await decreaseBalance(tx, move);
  await audited(
    tx,
    staff,
    "balance.adjust",
    { type: "customer", id: customerId },
    { balance: result.balance - input.points },
    { balance: result.balance, points: input.points, reason: input.reason, transactionId: result.entryId },
  );
  return { balance: result.balance, transaction: JSON.parse(result.entryJson) };
}

export async function deleteCustomer(tx: Tx, staff: StaffContext, customerId: string) {
  authorize(staff, "customers.delete");
  const { email } = await customerIn(tx, staff, customerId);
  await deleteCustomers(tx, staff.programId, [email]);
  // No personal data in the record of an erasure.
  await audited(tx, staff, "customer.delete", { type: "customer", id: customerId }, { deleted: false }, { deleted: true });
  return { deleted: true };
}

export async function redeemForCustomer(tx: Tx, staff: StaffContext, customerId: string, input: RedeemForm) {
  authorize(staff, "rewards.redeem");
  await customerIn(tx, staff, customerId);
  const result = await redeemReward(tx, { programId: staff.programId, customerId, rewardId: input.rewardId, metadata: input.metadata, actor: actorId(staff), source: "dashboard" });
  await audited(tx, staff, "reward.redeem", { type: "customer", id: customerId }, null, result);
  return result;
}

export async function assignCouponToCustomer(tx: Tx, staff: StaffContext, customerId: string, input: CouponForm) {
  authorize(staff, "coupons.assign");
  await customerIn(tx, staff, customerId);
  const coupon = await assignCoupon(tx, { programId: staff.programId, customerId, couponPoolId: input.couponPoolId });
  await audited(tx, staff, "coupon.assign", { type: "customer", id: customerId }, null, coupon);
  return { coupon };
}

export async function notifyCustomer(tx: Tx, staff: StaffContext, customerId: string, input: NotificationForm) {
  authorize(staff, "notifications.send");
  await customerIn(tx, staff, customerId);
  const notification = await sendNotification(tx, { programId: staff.programId, customerId, ...input });
  await audited(tx, staff, "notification.send", { type: "customer", id: customerId }, null, { ...notification, title: input.title, category: input.category });
  return { notification };
}

export async function createTierAsStaff(tx: Tx, staff: StaffContext, input: TierForm) {
  authorize(staff, "program.manage");
  const created = await createTier(tx, { programId: staff.programId, ...input });
  await audited(tx, staff, "tier.create", { type: "tier", id: created.tierId }, null, input);
  return created;
}

export async function createApiKeyAsStaff(tx: Tx, staff: StaffContext, input: ApiKeyForm) {
  authorize(staff, "apikeys.manage");
  const key = await createApiKey(tx, { programId: staff.programId, name: input.name });
  // The secret is returned to the caller once and never written to the audit log.
  await audited(tx, staff, "apikey.create", { type: "api_key", id: key.id }, null, { name: input.name, prefix: key.prefix });
  return key;
}

export async function revokeApiKeyAsStaff(tx: Tx, staff: StaffContext, keyId: string) {
  authorize(staff, "apikeys.manage");
  if (!isUuid(keyId)) throw notFound("API key");
  const key = await tx.apiKey.findFirst({ where: { id: keyId, programId: staff.programId }, select: { id: true, name: true, prefix: true, revokedAt: true } });
  if (!key) throw notFound("API key");
  if (key.revokedAt) throw new AppError(409, "conflict", "The key is already revoked.");
  const result = await revokeApiKey(tx, keyId);
  await audited(tx, staff, "apikey.revoke", { type: "api_key", id: keyId }, { name: key.name, prefix: key.prefix, revokedAt: null }, { revokedAt: result.revokedAt });
  return result;
}

const REWARD_FIELDS = { name: true, costPoints: true, stock: true, active: true } as const;

export async function createRewardAsStaff(tx: Tx, staff: StaffContext, input: RewardForm) {
  authorize(staff, "program.manage");
  const created = await createReward(tx, { programId: staff.programId, ...input });
  await audited(tx, staff, "reward.create", { type: "reward", id: created.rewardId }, null, input);
  return created;
}

/** Active on/off, stock (null: unlimited) and cost of a reward of the staff member's program. */
export async function updateRewardAsStaff(tx: Tx, staff: StaffContext, rewardId: string, input: RewardUpdate) {
  authorize(staff, "program.manage");
  const missing = () => new AppError(404, "reward_not_found", "No such reward in this program.");
  if (!isUuid(rewardId)) throw missing();
  const before = await tx.reward.findFirst({ where: { id: rewardId, programId: staff.programId }, select: REWARD_FIELDS });
  if (!before) throw missing();
  await updateReward(tx, staff.programId, rewardId, input);
  const after = await tx.reward.findFirstOrThrow({ where: { id: rewardId }, select: REWARD_FIELDS });
  await audited(tx, staff, "reward.update", { type: "reward", id: rewardId }, before, after);
  return { rewardId, ...after };
}

export async function createCouponPoolAsStaff(tx: Tx, staff: StaffContext, input: CouponPoolForm) {
  authorize(staff, "program.manage");
  const created = await createCouponPool(tx, { programId: staff.programId, ...input });
  await audited(tx, staff, "coupon_pool.create", { type: "coupon_pool", id: created.couponPoolId }, null, input);
  return created;
}

/**
 * One chunk of a CSV import into a pool of the staff member's program: inserted in the caller's transaction,
 * so the chunk is all-or-nothing. Codes already in the pool (or repeated in the chunk) are skipped. The audit
 * row holds the counts, never the codes.
 */
export async function importCouponsAsStaff(tx: Tx, staff: StaffContext, poolId: string, input: CouponImportChunk) {
  authorize(staff, "program.manage");
  const missing = () => new AppError(404, "coupon_pool_not_found", "No such coupon pool in this program.");
  if (!isUuid(poolId)) throw missing();
  const pool = await tx.couponPool.findFirst({ where: { id: poolId, programId: staff.programId }, select: { id: true } });
  if (!pool) throw missing();
  const result = await importCoupons(tx, poolId, input.codes);
  await audited(tx, staff, "coupon_pool.import", { type: "coupon_pool", id: poolId }, null, { received: input.codes.length, ...result });
  return result;
}

export async function createEarningFlowAsStaff(tx: Tx, staff: StaffContext, input: EarningFlowForm) {
  authorize(staff, "program.manage");
  const created = await createEarningFlow(tx, { programId: staff.programId, ...input });
  await audited(tx, staff, "earning_flow.create", { type: "earning_flow", id: created.earningFlowId }, null, input);
  return created;
}
