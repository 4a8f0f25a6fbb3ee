import { can, type Permission, type StaffContext } from "./authz";

/**
 * The dashboard's sidebar, in order. A page appears for the roles holding its permission (its loader checks
 * the same permission with requirePage); a `testOnly` page only on a test program. `path` is relative to
 * /dashboard/{programId}.
 */
export const NAV: { path: string; label: string; permission: Permission; testOnly?: boolean }[] = [
  { path: "", label: "Overview", permission: "program.read" },
  { path: "/finance", label: "Finance", permission: "program.read" },
  { path: "/customers", label: "Customers", permission: "customers.read" },
  { path: "/tiers", label: "Tiers", permission: "program.read" },
  { path: "/rewards", label: "Rewards", permission: "program.read" },
  { path: "/coupons", label: "Coupon pools", permission: "program.read" },
  { path: "/earning-flows", label: "Earning flows", permission: "program.read" },
  { path: "/campaigns", label: "Campaigns", permission: "program.read" },
  { path: "/segments", label: "Segments", permission: "program.read" },
  { path: "/api-keys", label: "API keys", permission: "apikeys.read" },
  { path: "/webhooks", label: "Webhooks", permission: "program.read" },
  { path: "/staff", label: "Staff", permission: "staff.read" },
  { path: "/audit", label: "Audit log", permission: "audit.read" },
  { path: "/clock", label: "Test clock", permission: "program.read", testOnly: true },
  { path: "/settings", label: "Settings", permission: "program.read" },
  { path: "/api-reference", label: "API reference", permission: "program.read" },
];

export function navLinks(staff: StaffContext): { href: string; label: string }[] {
  return NAV.filter((item) => can(staff.role, item.permission) && (!item.testOnly || staff.programTest)).map(
    (item) => ({
      href: `/dashboard/${staff.programId}${item.path}`,
      label: item.label,
    }),
  );
}
