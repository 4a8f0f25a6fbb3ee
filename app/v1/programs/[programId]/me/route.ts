import { corsPreflight } from "@/lib/api/cors";
import { meRead } from "@/lib/api/route-factories";
import { customerNotFound } from "@/lib/errors";
import { getCustomerJsonById } from "@/lib/domain/customer-read";

/** The customer a token names (same shape as Get customer details by email). 200. */
export const GET = meRead(async (req, db) => {
  const body = await getCustomerJsonById(db.raw, req.programId, req.customerId);
  if (!body) throw customerNotFound();
  return { status: 200, rawJson: body };
});

/** CORS preflight for the program's allowed origins (lib/api/cors.ts). */
export const OPTIONS = corsPreflight(["GET"]);
