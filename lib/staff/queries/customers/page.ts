import "server-only";
import { versionOf } from "@/lib/staff/versions";
import type { z } from "zod";
import type { Customer } from "@/lib/api/schemas/customers";
import type { TransactionPage } from "@/lib/api/schemas/points";
import type { Db } from "@/lib/db/types";
import { getCustomerJsonById } from "@/lib/domain/customer-read";
import { findCustomer, requireCustomer } from "@/lib/domain/customer-lookup";
import { listTransactionsJson } from "@/lib/domain/points";
import { findBalanceExplained } from "@/lib/domain/balance-explained";
import { customerReferrals } from "@/lib/domain/referrals";
import { listCustomerAttributes } from "@/lib/domain/customer-attributes";
import { programNow } from "@/lib/domain/clock";
import { staffQuery } from "../../authz";
import { customerSegments } from "../segments";
import { customerRedemptions } from "../redemptions";
import { customerTimeline } from "./timeline";

/** The dashboard's reads of one customer's page: the profile and its points history. */

/** One page (20 entries, newest first) of a customer's points history, after `cursor` (from the previous page). */
export const customerTransactions = staffQuery(
  "customers.read",
  async (db, staff, customerId: string, cursor: string | null) => {
    const customer = await requireCustomer(db, staff.programId, customerId);
    return JSON.parse(await listTransactionsJson(db, customer.id, 20, cursor)) as z.infer<typeof TransactionPage>;
  },
);

/** Everything the customer page shows, in parallel; null when the id names no live customer of the program. */
export async function customerProfile(db: Db, programId: string, customerId: string) {
  if (!(await findCustomer(db, programId, customerId))) return null;
  const [customerJson, timeline, rewards, pools, balance, redemptions, referrals, row, attributes, segments] =
    await Promise.all([
      getCustomerJsonById(db, programId, customerId),
      customerTimeline(db, programId, customerId),
      db.reward.findMany({
        where: { programId, active: true },
        orderBy: { costPoints: "asc" },
        select: { id: true, name: true, costPoints: true, stock: true },
      }),
      db.couponPool.findMany({ where: { programId }, orderBy: { name: "asc" }, select: { id: true, name: true } }),
      findBalanceExplained(db, programId, customerId),
      customerRedemptions(db, programId, customerId),
      customerReferrals(db, programId, customerId),
      db.customer.findFirst({ where: { id: customerId, programId }, select: { updatedAt: true } }),
      listCustomerAttributes(db, programId),
      customerSegments(db, programId, customerId, programNow(programId)),
    ]);
  // Deleted between the two reads: as missing as before them.
  if (!customerJson || !balance || !row) return null;
  return {
    /** The version the page's edit forms are made from (If-Match; lib/staff/versions.ts). */
    version: versionOf(row.updatedAt),
    customer: JSON.parse(customerJson) as z.infer<typeof Customer>,
    timeline,
    rewards,
    pools,
    /** The balance explained as of now; its `tier` is also the tier card's progress (one decision, one read). */
    balance,
    redemptions,
    referrals,
    /** The program's declared customer attributes (the user data form edits their values). */
    customerAttributes: attributes.map(({ name, type }) => ({ name, type })),
    /** The segments the customer is in now. */
    segments,
  };
}
