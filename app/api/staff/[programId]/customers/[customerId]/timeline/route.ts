import { staffRead } from "@/lib/staff/http";
import { customerTimelinePage } from "@/lib/staff/queries/customers/timeline";

/** One page (25 entries, newest first) of the customer's timeline; `?cursor=` from the previous page, `?kind=` (repeatable) narrows it. 200. */
export const GET = staffRead(customerTimelinePage, {
  args: (req) => [req.params.customerId!, req.url.searchParams.get("cursor"), req.url.searchParams.getAll("kind")],
});
