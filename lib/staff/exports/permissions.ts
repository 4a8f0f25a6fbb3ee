import type { ExportKind } from "@/lib/exports/kinds";
import type { Permission } from "../authz";

/** Who may take each export: customers' data in bulk (authz.ts), the codes a pool hands out, the audit log. */
export const EXPORT_PERMISSIONS: Record<ExportKind, Permission> = {
  customers: "customers.export",
  ledger: "customers.export",
  redemptions: "customers.export",
  // Free codes are worth a reward each: only those who manage the pools.
  "coupon-codes": "program.manage",
  "audit-log": "audit.read",
  "segment-members": "customers.export",
  // Program totals, no personal data: whoever sees the Finance page.
  "points-accounting": "program.read",
};
