import { staffRead } from "@/lib/staff/http";
import { customerTransactions } from "@/lib/staff/queries/customers/page";

/** One page (20 entries, newest first) of a customer's points history; `?cursor=` from the previous page. 200. */
export const GET = staffRead(customerTransactions, {
  args: (req) => [req.params.customerId!, req.url.searchParams.get("cursor")],
});
