import { can, type StaffContext } from "@/lib/staff/authz";
import { EXPORT_PERMISSIONS } from "@/lib/staff/exports/permissions";
import type { ExportKind } from "@/lib/exports/kinds";
import { ExportButton } from "./export-button";
import { CouponCodesExport } from "./coupon-codes-export";

/**
 * The export buttons as one line each in the pages that own the lists (customers, audit log, coupon pools): shown
 * only to roles allowed the export (the route checks it again), with the list's current filter.
 */
export function PageExport({
  staff,
  kind,
  filter,
}: {
  staff: StaffContext;
  kind: Exclude<ExportKind, "coupon-codes">;
  filter?: Record<string, string | null | undefined>;
}) {
  if (!can(staff.role, EXPORT_PERMISSIONS[kind])) return null;
  return <ExportButton programId={staff.programId} kind={kind} filter={filter} />;
}

/** The coupon pools page's export: pick a pool, export its codes. */
export function PoolCodesExport({ staff, pools }: { staff: StaffContext; pools: { id: string; name: string }[] }) {
  if (!can(staff.role, EXPORT_PERMISSIONS["coupon-codes"]) || pools.length === 0) return null;
  return <CouponCodesExport programId={staff.programId} pools={pools} />;
}
