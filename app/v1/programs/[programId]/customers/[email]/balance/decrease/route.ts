import { customerWrite } from "@/lib/api/route-factories";
import { balanceChange } from "@/lib/api/customer-routes";
import { decreaseBalance } from "@/lib/domain/points";

/** Decrease balance: a `spend` entry; 409 `insufficient_balance` rather than going below zero. 200. */
export const POST = customerWrite(balanceChange(decreaseBalance));
