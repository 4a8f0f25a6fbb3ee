import type { Db, Tx } from "@/lib/db/types";
import { adjustmentAboveCeiling, conflict, couponPoolNotFound, customerNotFound, notFound, rewardNotFound } from "@/lib/errors";
import { applyUserBatch } from "@/lib/domain/customers";
import { deleteCustomers } from "@/lib/domain/deletion";
import { decreaseBalance, increaseBalance } from "@/lib/domain/points";
import { createTier } from "@/lib/domain/tiers";
import { createApiKey, revokeApiKey } from "@/lib/domain/api-keys";
import { createReward, redeemReward, updateReward } from "@/lib/domain/rewards";
import { assignCoupon, createCouponPool, importCoupons } from "@/lib/domain/coupons";
import { createEarningFlow } from "@/lib/domain/earning-flows";
import { sendNotification } from "@/lib/domain/notifications";
import { createWebhook, resendDelivery, setPushEndpoint } from "@/lib/domain/webhooks";
import { createStaff } from "@/lib/domain/staff";
import type { Role } from "@/lib/domain/vocabulary";
import { aboveCeiling } from "@/lib/domain/adjustment-ceilings";
import { programAdjustCeilings } from "@/lib/domain/programs";
import { revokeAllStaffSessions } from "@/lib/domain/staff-sessions";
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
  PushEndpointForm,
  StaffDisabledForm,
  StaffForm,
  StaffRoleForm,
  WebhookForm,
  WebhookUpdate,
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
  const refusal = aboveCeiling(staff.role, await programAdjustCeilings(tx, staff.programId), input.points);
  if (refusal) throw adjustmentAboveCeiling(refusal);
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
  const key = await createApiKey(tx, { programId: staff.programId, name: input.name, rateLimitPerSec: input.rateLimitPerSec, rateLimitBurst: input.rateLimitBurst });
  // The secret is returned to the caller once and never written to the audit log.
  await audited(tx, staff, "apikey.create", { type: "api_key", id: key.id }, null, {
    name: input.name,
    prefix: key.prefix,
    rateLimitPerSec: key.rateLimitPerSec,
    rateLimitBurst: key.rateLimitBurst,
  });
  return key;
}

export async function revokeApiKeyAsStaff(tx: Tx, staff: StaffContext, keyId: string) {
  authorize(staff, "apikeys.manage");
  if (!isUuid(keyId)) throw notFound("API key");
  const key = await tx.apiKey.findFirst({ where: { id: keyId, programId: staff.programId }, select: { id: true, name: true, prefix: true, revokedAt: true } });
  if (!key) throw notFound("API key");
  if (key.revokedAt) throw conflict("The key is already revoked.");
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
  const missing = () => rewardNotFound();
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
  const missing = () => couponPoolNotFound();
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

/** A URL as the audit log keeps it: without user name and password, should one be embedded in it. */
function auditUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return parsed.toString();
    parsed.username = parsed.password ? "redacted" : "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    return null;
  }
}

export async function createWebhookAsStaff(tx: Tx, staff: StaffContext, input: WebhookForm) {
  authorize(staff, "program.manage");
  const { webhookId, secret } = await createWebhook(tx, { programId: staff.programId, url: input.url });
  const webhook = await tx.webhook.findUniqueOrThrow({ where: { id: webhookId }, select: { id: true, url: true, active: true, createdAt: true } });
  // The signing secret is returned to the caller once and never written to the audit log.
  await audited(tx, staff, "webhook.create", { type: "webhook", id: webhookId }, null, { url: auditUrl(webhook.url), active: webhook.active });
  return { ...webhook, secret };
}

export async function setWebhookActiveAsStaff(tx: Tx, staff: StaffContext, webhookId: string, input: WebhookUpdate) {
  authorize(staff, "program.manage");
  if (!isUuid(webhookId)) throw notFound("webhook");
  const webhook = await tx.webhook.findFirst({ where: { id: webhookId, programId: staff.programId }, select: { id: true, url: true, active: true } });
  if (!webhook) throw notFound("webhook");
  if (webhook.active === input.active) throw conflict(`The webhook is already ${input.active ? "active" : "disabled"}.`);
  await tx.webhook.update({ where: { id: webhookId }, data: { active: input.active } });
  await audited(tx, staff, "webhook.update", { type: "webhook", id: webhookId }, { url: auditUrl(webhook.url), active: webhook.active }, { active: input.active });
  return { id: webhookId, active: input.active };
}

export async function setPushEndpointAsStaff(tx: Tx, staff: StaffContext, input: PushEndpointForm) {
  authorize(staff, "program.manage");
  const program = await tx.program.findUniqueOrThrow({ where: { id: staff.programId }, select: { pushEndpointUrl: true } });
  const result = await setPushEndpoint(tx, { programId: staff.programId, url: input.url });
  const after = await tx.program.findUniqueOrThrow({ where: { id: staff.programId }, select: { pushEndpointUrl: true } });
  // A new signing secret comes with every new URL: returned once, never audited.
  await audited(tx, staff, "push.set", { type: "program", id: staff.programId }, { url: auditUrl(program.pushEndpointUrl) }, { url: auditUrl(after.pushEndpointUrl) });
  return { url: after.pushEndpointUrl, secret: result.secret };
}

export async function resendDeliveryAsStaff(tx: Tx, staff: StaffContext, deliveryId: string) {
  authorize(staff, "program.manage");
  if (!isUuid(deliveryId)) throw notFound("delivery");
  const delivery = await tx.delivery.findFirst({
    where: { id: deliveryId, programId: staff.programId },
    select: { id: true, kind: true, status: true, attempts: true, lastStatusCode: true, webhook: { select: { active: true } } },
  });
  if (!delivery) throw notFound("delivery");
  // The worker would only cancel it: say so now rather than queue it.
  const configured =
    delivery.kind === "webhook"
      ? !!delivery.webhook?.active
      : !!(await tx.program.findUniqueOrThrow({ where: { id: staff.programId }, select: { pushEndpointUrl: true } })).pushEndpointUrl;
  if (!configured) {
    throw conflict(delivery.kind === "webhook" ? "The webhook of this delivery is disabled: enable it first." : "The program has no push endpoint: set one first.");
  }
  await resendDelivery(tx, staff.programId, deliveryId);
  await audited(
    tx,
    staff,
    "delivery.resend",
    { type: "delivery", id: deliveryId },
    { status: delivery.status, attempts: delivery.attempts, lastStatusCode: delivery.lastStatusCode },
    { status: "pending" },
  );
  return { id: deliveryId, status: "pending" as const };
}

/**
 * Staff management. The account's `disabledAt` is account-wide, so it may only be changed by someone who owns
 * every program the account belongs to; and every program must keep at least one active owner. The programs'
 * rows are locked first, so two owners demoting or disabling each other at once cannot both succeed.
 */
async function lockPrograms(tx: Tx, programIds: string[]) {
  const ids = [...new Set(programIds)].sort();
  await tx.$queryRawUnsafe(`SELECT id FROM "Program" WHERE id IN (SELECT (jsonb_array_elements_text($1::jsonb))::uuid) ORDER BY id FOR UPDATE`, JSON.stringify(ids));
}

/** Whether `programId` keeps an active owner other than `staffId`. */
async function otherActiveOwner(tx: Tx, programId: string, staffId: string) {
  const count = await tx.staffMembership.count({ where: { programId, role: "owner", staffId: { not: staffId }, staff: { disabledAt: null } } });
  return count > 0;
}

const lastOwner = () => conflict("The program must keep at least one active owner.");

async function memberIn(tx: Tx, staff: StaffContext, staffId: string) {
  if (!isUuid(staffId)) throw notFound("staff member");
  const membership = await tx.staffMembership.findUnique({
    where: { staffId_programId: { staffId, programId: staff.programId } },
    select: { role: true, staff: { select: { id: true, email: true, disabledAt: true } } },
  });
  if (!membership) throw notFound("staff member");
  return { role: membership.role as Role, ...membership.staff };
}

export async function createStaffAsStaff(tx: Tx, staff: StaffContext, input: StaffForm) {
  authorize(staff, "staff.manage");
  // An existing account may belong to other programs whose owners this owner is not: adding it here is for the CLI.
  const existing = await tx.staffUser.findUnique({ where: { email: input.email }, select: { id: true } });
  if (existing) {
    throw conflict("A staff account with this e-mail already exists.", [{ path: "email", message: "already has an account" }]);
  }
  const created = await createStaff(tx, { programId: staff.programId, email: input.email, name: input.name, password: input.password, role: input.role });
  // Never the password or its hash.
  await audited(tx, staff, "staff.create", { type: "staff", id: created.staffId }, null, { email: created.email, name: input.name, role: input.role });
  return { id: created.staffId, email: created.email, name: input.name, role: input.role };
}

export async function changeRoleAsStaff(tx: Tx, staff: StaffContext, staffId: string, input: StaffRoleForm) {
  authorize(staff, "staff.manage");
  if (staffId === staff.staffId) throw conflict("You cannot change your own role: ask another owner.");
  await lockPrograms(tx, [staff.programId]);
  const member = await memberIn(tx, staff, staffId);
  if (member.role === input.role) throw conflict(`${member.email} is already ${input.role}.`);
  if (member.role === "owner" && !member.disabledAt && !(await otherActiveOwner(tx, staff.programId, staffId))) throw lastOwner();
  await tx.staffMembership.update({ where: { staffId_programId: { staffId, programId: staff.programId } }, data: { role: input.role } });
  await audited(tx, staff, "staff.role", { type: "staff", id: staffId }, { email: member.email, role: member.role }, { role: input.role });
  return { id: staffId, role: input.role };
}

export async function setStaffDisabledAsStaff(tx: Tx, staff: StaffContext, staffId: string, input: StaffDisabledForm) {
  authorize(staff, "staff.manage");
  if (staffId === staff.staffId) throw conflict("You cannot disable or re-enable your own account.");
  const member = await memberIn(tx, staff, staffId);
  if (!!member.disabledAt === input.disabled) throw conflict(`${member.email} is already ${input.disabled ? "disabled" : "active"}.`);
  const memberships = await tx.staffMembership.findMany({ where: { staffId }, select: { programId: true, role: true } });
  const owned = new Set(
    (await tx.staffMembership.findMany({ where: { staffId: staff.staffId, role: "owner" }, select: { programId: true } })).map((m) => m.programId),
  );
  if (memberships.some((m) => !owned.has(m.programId))) {
    throw conflict(`${member.email} also belongs to a program you do not own: only its owners can disable or re-enable the account.`);
  }
  await lockPrograms(tx, memberships.map((m) => m.programId));
  if (input.disabled) {
    for (const m of memberships) if (m.role === "owner" && !(await otherActiveOwner(tx, m.programId, staffId))) throw lastOwner();
  }
  const disabledAt = input.disabled ? new Date() : null;
  await tx.staffUser.update({ where: { id: staffId }, data: { disabledAt } });
  // Disabling also ends the account's sessions, so re-enabling it later does not revive them.
  if (input.disabled) await revokeAllStaffSessions(tx, staffId);
  await audited(tx, staff, input.disabled ? "staff.disable" : "staff.enable", { type: "staff", id: staffId }, { email: member.email, disabledAt: member.disabledAt }, { disabledAt });
  return { id: staffId, disabled: input.disabled, disabledAt };
}
