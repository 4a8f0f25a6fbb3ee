import { staffApi } from "@/lib/staff/urls";
import { Card, dangerButtonClass } from "@/components/ui";
import { WriteButton } from "../write-button";

/**
 * Revokes every customer token of the program at once (owners), after a confirmation: for a leaked token, or when
 * moving a program in from another vendor (docs/integrating.md "Coming from JeriCommerce").
 */
export function RevokeCustomerTokensCard({ programId }: { programId: string }) {
  return (
    <Card title="Customer tokens">
      <div className="flex flex-wrap items-center justify-between gap-3 text-sm">
        <p className="max-w-prose text-slate-600">
          Front-end widgets call the <code className="font-mono">/me</code> routes with customer tokens (valid up to 7
          days). Revoking makes every token issued so far invalid at once; widgets then need a new one.
        </p>
        <WriteButton
          write={{ method: "DELETE", url: staffApi.customerTokens(programId), success: "Every customer token revoked" }}
          confirm="Revoke every customer token of this program? Signed-in widgets stop working until they get a new token."
          className={dangerButtonClass}
        >
          Revoke all customer tokens
        </WriteButton>
      </div>
    </Card>
  );
}
