import { staffRead } from "@/lib/staff/http";
import { searchCustomers } from "@/lib/staff/queries";

/** Customers whose e-mail starts with `q` (case-insensitive), for the global search box. */
export const GET = staffRead("customers.read", async (req, db) => ({
  data: (await searchCustomers(db, req.staff.programId, { prefix: req.url.searchParams.get("q") ?? "", limit: 8 })).rows,
}));
