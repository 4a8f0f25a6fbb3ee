import { apiRead } from "@/lib/api/route-factories";
import { customerNotFound } from "@/lib/errors";
import { getCustomerJson } from "@/lib/domain/customer-read";
import { normaliseEmail } from "@/lib/domain/customers";

/** Get customer details by email (spec §4.1). 200. */
export const GET = apiRead(async (req, db) => {
  const body = await getCustomerJson(db.raw, req.programId, normaliseEmail(req.params.email ?? ""));
  if (!body) throw customerNotFound();
  return { status: 200, rawJson: body };
});
