import { corsPreflight } from "@/lib/api/cors";
import { meWrite } from "@/lib/api/route-factories";
import { redemption } from "@/lib/api/customer-routes";

/** The token's customer redeems a reward (as the integrator's redeem route does). 201. */
export const POST = meWrite(redemption);

/** CORS preflight for the program's allowed origins (lib/api/cors.ts). */
export const OPTIONS = corsPreflight(["POST"]);
