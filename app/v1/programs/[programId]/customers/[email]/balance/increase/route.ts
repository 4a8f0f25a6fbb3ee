import { customerWrite } from "@/lib/api/route-factories";
import { balanceChange } from "@/lib/api/customer-routes";
import { increaseBalance } from "@/lib/domain/points";

/** Increase balance: an `earn` entry, counted towards tiers. 200. */
export const POST = customerWrite(balanceChange(increaseBalance));
