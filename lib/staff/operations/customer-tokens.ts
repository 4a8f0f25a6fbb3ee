import "server-only";
import { revokeCustomerTokens } from "@/lib/domain/customer-tokens";
import { audited } from "../audit";
import { staffOperation } from "../authz";

/** Revokes every customer token of the program (`tokens.revoke`, owners), audited; the signing key is never logged. */
export const revokeCustomerTokensAsStaff = staffOperation("tokens.revoke", async (tx, staff) => {
  const result = await revokeCustomerTokens(tx, staff.programId);
  await audited(tx, staff, "customer_tokens.revoke", { type: "program", id: staff.programId }, null, result);
  return result;
});
