import { staffRead } from "@/lib/staff/http";
import { clockNow } from "@/lib/staff/queries/clock";

/** The program's clock `{ now, mode }` (every member); 200. */
export const GET = staffRead(clockNow, { args: () => [] });
