import { z } from "zod";
import type { Db, Tx } from "@/lib/db/types";
import { AppError, customerNotFound, notFound } from "@/lib/errors";
import { MAX_POINTS, Metadata, UserPayload } from "@/lib/api/schemas";
import { applyUserBatch } from "@/lib/domain/customers";
import { deleteCustomers } from "@/lib/domain/deletion";
import { decreaseBalance, increaseBalance } from "@/lib/domain/points";
import { createTier } from "@/lib/domain/tiers";
import { createApiKey, revokeApiKey } from "@/lib/domain/api-keys";
import { redeemReward } from "@/lib/domain/rewards";
import { assignCoupon } from "@/lib/domain/coupons";
import { sendNotification, CATEGORIES } from "@/lib/domain/notifications";
import { audit } from "./audit";
import { authorize, type StaffContext } from "./session";

/**
 * Every staff write, one function each: authorise by role, act through the same domain functions as the
 * API, and audit (before → after) in the same transaction. Route handlers in app/api/staff only parse and
 * call these, so a forged request meets exactly the same checks as a click.
 */

const actorOf = (staff: StaffContext) => ({ staffId: staff.staffId, email: staff.email });

async function customerIn(db: Db, staff: StaffContext, customerId: string) {
  const customer = await db.customer.findFirst({
    where: { id: customerId, programId: staff.programId, deletedAt: null },
    select: { id: true, email: true, userData: true },
  });
  if (!customer?.email) throw customerNotFound();
  return { ...customer, email: customer.email };
}

export const UserDataEdit = UserPayload.omit({ email: true }).extend({
  birthdate: z.iso.date("must be a date (YYYY-MM-DD)").nullable().optional(),
});

export async function updateCustomer(tx: Tx, staff: StaffContext, customerId: string, input: z.infer<typeof UserDataEdit>) {
  authorize(staff, "customers.write");
  const before = await customerIn(tx, staff, customerId);
  const { birthdate, ...payload } = input;
  await applyUserBatch(tx, staff.programId, [{ email: before.email, feature: "user", payload }]);
  if (birthdate !== undefined) await tx.userData.update({ where: { customerId }, data: { birthdate } });
  const after = await tx.userData.findUnique({ where: { customerId } });
  await audit(tx, actorOf(staff), { programId: staff.programId, action: "customer.update", entityType: "customer", entityId: customerId, before: before.userData, after });
  return after;
}

export const BalanceAdjustment = z.strictObject({
  points: z.number().int().refine((n) => n !== 0 && Math.abs(n) <= MAX_POINTS, "must be a non-zero whole number of points"),
  reason: z.string().trim().min(3, "a reason is required").max(255),
});

export async function adjustBalance(tx: Tx, staff: StaffContext, customerId: string, input: z.infer<typeof BalanceAdjustment>) {
  authorize(staff, "balance.adjust");
  await customerIn(tx, staff, customerId);
  const move = { programId: staff.programId, customerId, points: Math.abs(input.points), reason: input.reason, source: "dashboard" as const, actor: `staff:${staff.staffId}` };
  const result = input.points > 0 ? await increaseBalance(tx, move) : await decreaseBalance(tx, move);
  await audit(tx, actorOf(staff), {
    programId: staff.programId,
    action: "balance.adjust",
    entityType: "customer",
    entityId: customerId,
    before: { balance: result.balance - input.points },
    after: { balance: result.balance, reason: input.reason, transactionId: result.entryId },
  });
  return { balance: result.balance, transaction: JSON.parse(result.entryJson) };
}

export async function deleteCustomer(tx: Tx, staff: StaffContext, customerId: string) {
  authorize(staff, "customers.delete");
  const customer = await customerIn(tx, staff, customerId);
  await deleteCustomers(tx, staff.programId, [customer.email]);
  await audit(tx, actorOf(staff), { programId: staff.programId, action: "customer.delete", entityType: "customer", entityId: customerId, before: { email: customer.email } });
  return { deleted: true };
}

export const RedeemForm = z.strictObject({ rewardId: z.uuid() });
export async function redeemForCustomer(tx: Tx, staff: StaffContext, customerId: string, input: z.infer<typeof RedeemForm>) {
  authorize(staff, "customers.write");
  await customerIn(tx, staff, customerId);
  const result = await redeemReward(tx, { programId: staff.programId, customerId, rewardId: input.rewardId, actor: `staff:${staff.staffId}`, source: "dashboard" });
  await audit(tx, actorOf(staff), { programId: staff.programId, action: "reward.redeem", entityType: "customer", entityId: customerId, after: result.redemption });
  return result;
}

export const CouponForm = z.strictObject({ couponPoolId: z.uuid() });
export async function assignCouponToCustomer(tx: Tx, staff: StaffContext, customerId: string, input: z.infer<typeof CouponForm>) {
  authorize(staff, "customers.write");
  await customerIn(tx, staff, customerId);
  const coupon = await assignCoupon(tx, { programId: staff.programId, customerId, couponPoolId: input.couponPoolId });
  await audit(tx, actorOf(staff), { programId: staff.programId, action: "coupon.assign", entityType: "customer", entityId: customerId, after: coupon });
  return coupon;
}

export const NotificationForm = z.strictObject({
  title: z.string().trim().min(1).max(120),
  body: z.string().trim().min(1).max(1000),
  category: z.enum(CATEGORIES),
  data: Metadata.nullable().optional(),
});
export async function notifyCustomer(tx: Tx, staff: StaffContext, customerId: string, input: z.infer<typeof NotificationForm>) {
  authorize(staff, "customers.write");
  await customerIn(tx, staff, customerId);
  const notification = await sendNotification(tx, { programId: staff.programId, customerId, ...input });
  await audit(tx, actorOf(staff), { programId: staff.programId, action: "notification.send", entityType: "customer", entityId: customerId, after: { ...notification, title: input.title } });
  return notification;
}

export const TierForm = z.strictObject({
  name: z.string().trim().min(1).max(255),
  requiredPoints: z.number().int().min(0).max(MAX_POINTS),
  factor: z.number().min(0).max(100),
  content: z.string().trim().max(2000).nullable().optional(),
  image: z.url().max(2000).nullable().optional().or(z.literal("").transform(() => null)),
});
export async function createTierAsStaff(tx: Tx, staff: StaffContext, input: z.infer<typeof TierForm>) {
  authorize(staff, "program.manage");
  const created = await createTier(tx, { programId: staff.programId, ...input });
  await audit(tx, actorOf(staff), { programId: staff.programId, action: "tier.create", entityType: "tier", entityId: created.tierId, after: input });
  return created;
}

export const ApiKeyForm = z.strictObject({ name: z.string().trim().min(1).max(255) });
export async function createApiKeyAsStaff(tx: Tx, staff: StaffContext, input: z.infer<typeof ApiKeyForm>) {
  authorize(staff, "apikeys.manage");
  const key = await createApiKey(tx, { programId: staff.programId, name: input.name });
  // The secret is returned to the caller once and never written to the audit log.
  await audit(tx, actorOf(staff), { programId: staff.programId, action: "apikey.create", entityType: "api_key", entityId: key.id, after: { name: input.name, prefix: key.prefix } });
  return key;
}

export async function revokeApiKeyAsStaff(tx: Tx, staff: StaffContext, keyId: string) {
  authorize(staff, "apikeys.manage");
  const key = await tx.apiKey.findFirst({ where: { id: keyId, programId: staff.programId }, select: { id: true, name: true, prefix: true, revokedAt: true } });
  if (!key) throw notFound("API key");
  if (key.revokedAt) throw new AppError(409, "conflict", "The key is already revoked.");
  const result = await revokeApiKey(tx, keyId);
  await audit(tx, actorOf(staff), { programId: staff.programId, action: "apikey.revoke", entityType: "api_key", entityId: keyId, before: { name: key.name, prefix: key.prefix }, after: { revokedAt: result.revokedAt } });
  return result;
}

