"use client";

import { useRouter } from "next/navigation";
import { useStaffWrite } from "@/lib/staff/client";
import { dashboardPages, staffApi } from "@/lib/staff/urls";
import { dangerButtonClass } from "@/components/ui";

/** Deletes a segment (managers), confirmed, from the version the page showed; then back to the list. */
export function SegmentDelete({
  programId,
  segmentId,
  version,
}: {
  programId: string;
  segmentId: string;
  version: string;
}) {
  const router = useRouter();
  const write = useStaffWrite({
    method: "DELETE",
    url: staffApi.segment(programId, segmentId),
    success: "Segment deleted",
    version,
    onSuccess: () => router.push(dashboardPages.segments(programId)),
  });
  return (
    <button
      type="button"
      className={dangerButtonClass}
      disabled={write.pending}
      onClick={() => {
        if (window.confirm("Delete this segment? Campaigns that name it will be refused at their next save."))
          write.submit();
      }}
    >
      Delete segment
    </button>
  );
}
