import { staffRead } from "@/lib/staff/http";
import { quickSearch } from "@/lib/staff/queries/customers/search";

/** Customers whose e-mail starts with `q` (case-insensitive), for the global search box; 200. */
export const GET = staffRead(quickSearch, { args: (req) => [req.url.searchParams.get("q") ?? ""] });
