import "server-only";
import type { Db } from "@/lib/db/types";
import { adjustmentAboveCeiling } from "@/lib/errors";
import { applyUserBatch } from "@/lib/domain/customers";
import { requireCustomer } from "@/lib/domain/customer-lookup";
import { deleteCustomers } from "@/lib/domain/deletion";
import { decreaseBalance, increaseBalance } from "@/lib/domain/points";
import { redeemReward } from "@/lib/domain/rewards";
import { assignCoupon } from "@/lib/domain/coupons";
import { sendNotification } from "@/lib/domain/notifications";
import { aboveCeiling } from "@/lib/domain/adjustment-ceilings";
import { programAdjustCeilings } from "@/lib/domain/programs";
import { audited, auditedUpdate } from "../audit";
import { staffOperation, type StaffContext } from "../authz";
import type { CouponForm } from "../forms/coupons";
import type { NoteForm, PreferencesForm, UserDataEdit } from "../forms/customers";
import type { NotificationForm } from "../forms/notifications";
import type { BalanceAdjustment } from "../forms/points";
import type { RedeemForm } from "../forms/rewards";

/**
 * The staff writes on one customer of the program: edit, adjust the balance, redeem, assign a coupon, notify,
 * delete. Each states its permission once (`staffOperation`), finds the customer with `requireCustomer` (another
 * program's customer is a 404), acts through the same domain function as the API, and audits in the same
 * transaction. Inputs are already validated with the schemas of lib/staff/forms/.
 */

/** Who the ledger says made a dashboard change. */
const actorId = (staff: StaffContext) => `staff:${staff.staffId}`;

const USER_FIELDS = {
  externalCustomerId: true,
  firstName: true,
  lastName: true,
  phone: true,
  birthdate: true,
  emailVerified: true,
} as const;

/** The customer with the user data the edit form changes: what the audit log keeps before and after an edit. */
async function customerWithUserData(db: Db, programId: string, customerId: string) {
  const customer = await requireCustomer(db, programId, customerId);
  const userData = await db.userData.findUnique({ where: { customerId: customer.id }, select: USER_FIELDS });
  return { ...customer, ...userData };
}

export const updateCustomer = staffOperation(
  "customers.edit",
  async (tx, staff, customerId: string, input: UserDataEdit, version?: string) => {
    const { after, version: next } = await auditedUpdate(
      tx,
      staff,
      "customer.update",
      { type: "customer", id: customerId },
      {
        read: () => customerWithUserData(tx, staff.programId, customerId),
        change: async (before) => {
          await applyUserBatch(tx, staff.programId, [{ email: before.email, feature: "user", payload: input }]);
        },
        version: { of: "customer", expected: version },
      },
    );
    return { ...after, version: next };
  },
);

export const adjustBalance = staffOperation(
  "balance.adjust",
  async (tx, staff, customerId: string, input: BalanceAdjustment) => {
    await requireCustomer(tx, staff.programId, customerId);
    const refusal = aboveCeiling(staff.role, await programAdjustCeilings(tx, staff.programId), input.points);
    if (refusal) throw adjustmentAboveCeiling(refusal);
    const move = {
      programId: staff.programId,
      customerId,
      points: Math.abs(input.points),
      reason: input.reason,
      source: "dashboard" as const,
      actor: actorId(staff),
    };
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
  },
);

export const deleteCustomer = staffOperation("customers.delete", async (tx, staff, customerId: string) => {
  const { email } = await requireCustomer(tx, staff.programId, customerId);
  await deleteCustomers(tx, staff.programId, [email]);
  // No personal data in the record of an erasure.
  await audited(
    tx,
    staff,
    "customer.delete",
    { type: "customer", id: customerId },
    { deleted: false },
    { deleted: true },
  );
  return { deleted: true };
});

export const redeemForCustomer = staffOperation(
  "rewards.redeem",
  async (tx, staff, customerId: string, input: RedeemForm) => {
    await requireCustomer(tx, staff.programId, customerId);
    const result = await redeemReward(tx, {
      programId: staff.programId,
      customerId,
      rewardId: input.rewardId,
      metadata: input.metadata,
      actor: actorId(staff),
      source: "dashboard",
    });
    await audited(tx, staff, "reward.redeem", { type: "customer", id: customerId }, null, result);
    return result;
  },
);

export const assignCouponToCustomer = staffOperation(
  "coupons.assign",
  async (tx, staff, customerId: string, input: CouponForm) => {
    await requireCustomer(tx, staff.programId, customerId);
    const coupon = await assignCoupon(tx, { programId: staff.programId, customerId, couponPoolId: input.couponPoolId });
    await audited(tx, staff, "coupon.assign", { type: "customer", id: customerId }, null, coupon);
    return { coupon };
  },
);

export const notifyCustomer = staffOperation(
  "notifications.send",
  async (tx, staff, customerId: string, input: NotificationForm) => {
    await requireCustomer(tx, staff.programId, customerId);
    const notification = await sendNotification(tx, { programId: staff.programId, customerId, ...input });
    await audited(tx, staff, "notification.send", { type: "customer", id: customerId }, null, {
      ...notification,
      title: input.title,
      category: input.category,
    });
    return { notification };
  },
);

const PREFERENCE_FIELDS = {
  language: true,
  balanceNotifications: true,
  tierNotifications: true,
  rewardAvailableNotifications: true,
  locationNotifications: true,
  marketingNotifications: true,
} as const;

/** Support changes the customer's notification flags and language (what the customer could ask them to). */
export const updatePreferences = staffOperation(
  "customers.edit",
  async (tx, staff, customerId: string, input: PreferencesForm, version?: string) => {
    const { after, version: next } = await auditedUpdate(
      tx,
      staff,
      "customer.preferences",
      { type: "customer", id: customerId },
      {
        read: async () => {
          await requireCustomer(tx, staff.programId, customerId);
          return tx.customer.findUniqueOrThrow({ where: { id: customerId }, select: PREFERENCE_FIELDS });
        },
        change: () => tx.customer.update({ where: { id: customerId }, data: input, select: { id: true } }),
        version: { of: "customer", expected: version },
      },
    );
    return { ...after, version: next };
  },
);

/**
 * An internal note by the staff member: kept for the customer page's timeline only (no event, no webhook, no
 * /v1 field), audited like any write about the customer, and deleted when the customer is erased.
 */
export const addNote = staffOperation("customers.edit", async (tx, staff, customerId: string, input: NoteForm) => {
  await requireCustomer(tx, staff.programId, customerId);
  const note = await tx.customerNote.create({
    data: { programId: staff.programId, customerId, staffId: staff.staffId, body: input.body },
    select: { id: true, body: true, createdAt: true },
  });
  await audited(tx, staff, "customer.note", { type: "customer", id: customerId }, null, note);
  return { note };
});
