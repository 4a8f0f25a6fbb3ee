import { meWrite } from "@/lib/api/route-factories";
import { redemption } from "@/lib/api/customer-routes";

/** The token's customer redeems a reward (as the integrator's redeem route does). 201. */
export const POST = meWrite(redemption);
