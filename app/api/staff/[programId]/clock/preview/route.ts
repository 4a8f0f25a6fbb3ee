import { parseWith } from "@/lib/api/edge";
import { staffRead } from "@/lib/staff/http";
import { ClockPreviewQuery } from "@/lib/staff/forms/clock";
import { clockPreview } from "@/lib/staff/queries/clock";

/** A dry run of an advance of a test program's clock to `?to=` (managers and owners): its report, nothing stored; 200. */
export const GET = staffRead(clockPreview, {
  args: (req) => [parseWith(ClockPreviewQuery)({ to: req.url.searchParams.get("to") ?? undefined }).to],
});
