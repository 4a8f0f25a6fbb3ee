import { staffRead } from "@/lib/staff/http";
import { listTransactionsJson } from "@/lib/domain/points";
import { customerNotFound } from "@/lib/errors";

export const GET = staffRead("customers.read", async (req, db) => {
  const customer = await db.customer.findFirst({ where: { id: req.params.customerId, programId: req.staff.programId, deletedAt: null }, select: { id: true } });
  if (!customer) throw customerNotFound();
  const cursor = req.url.searchParams.get("cursor");
  return JSON.parse(await listTransactionsJson(db, customer.id, 20, cursor));
});
