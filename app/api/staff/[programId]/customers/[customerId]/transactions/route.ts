import { staffRead } from "@/lib/staff/http";
import { isUuid } from "@/lib/staff/authz";
import { listTransactionsJson } from "@/lib/domain/points";
import { customerNotFound } from "@/lib/errors";

/** One page (20 entries, newest first) of a customer's points history; `?cursor=` from the previous page. */
export const GET = staffRead("customers.read", async (req, db) => {
  const customerId = req.params.customerId;
  const customer = isUuid(customerId)
    ? await db.customer.findFirst({ where: { id: customerId, programId: req.staff.programId, deletedAt: null }, select: { id: true } })
    : null;
  if (!customer) throw customerNotFound();
  return JSON.parse(await listTransactionsJson(db, customer.id, 20, req.url.searchParams.get("cursor")));
});
