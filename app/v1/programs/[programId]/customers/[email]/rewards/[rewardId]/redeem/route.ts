import { customerWrite } from "@/lib/api/route-factories";
import { redemption } from "@/lib/api/customer-routes";

/** Redeem a reward for the customer: spends its cost through the ledger and takes one unit of stock. 201. */
export const POST = customerWrite(redemption);
