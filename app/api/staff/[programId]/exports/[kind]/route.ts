// A CSV export of the program (customers, ledger, redemptions, coupon codes, audit log), streamed: 200 text/csv.
import { exportRoute } from "@/lib/staff/exports/route";

export const GET = exportRoute;
