import { staffApi } from "@/lib/staff/urls";
import { dangerButtonClass } from "@/components/ui";
import { WriteButton } from "../write-button";

/** Revokes an API key on the API keys page, after a confirmation. */
export function RevokeKeyButton({ programId, keyId, name }: { programId: string; keyId: string; name: string }) {
  return (
    <WriteButton
      write={{ method: "DELETE", url: staffApi.apiKey(programId, keyId), success: `Key "${name}" revoked` }}
      confirm={`Revoke "${name}"? Integrations using it stop working within seconds.`}
      className={dangerButtonClass}
    >
      Revoke
    </WriteButton>
  );
}
