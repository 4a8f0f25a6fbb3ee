import { staffWrite } from "@/lib/staff/http";
import { revokeCustomerTokensAsStaff } from "@/lib/staff/operations/customer-tokens";

/** Revokes every customer token of the program; 200 with the revocation time. */
export const DELETE = staffWrite(revokeCustomerTokensAsStaff, { args: () => [] });
