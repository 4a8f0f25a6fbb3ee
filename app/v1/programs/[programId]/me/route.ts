import { meRead } from "@/lib/api/customer-auth";
import { customerNotFound } from "@/lib/errors";
import { getCustomerJsonById } from "@/lib/domain/customers";

/** The customer a token names (same shape as Get customer details by email). */
export const GET = meRead(async (req, db) => {
  const body = await getCustomerJsonById(db, req.programId, req.caller.customerId!);
  if (!body) throw customerNotFound();
  return { status: 200, rawJson: body };
});
