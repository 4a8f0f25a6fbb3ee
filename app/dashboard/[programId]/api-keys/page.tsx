import { db } from "@/lib/db/client";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { apiKeys } from "@/lib/staff/queries/api-keys";
import { ActiveBadge, Card, Empty, formatDate, formatNumber } from "@/components/ui";
import { ApiKeyForm } from "@/components/dashboard/api-keys/api-key-form";
import { ApiKeyLimitsForm } from "@/components/dashboard/api-keys/api-key-limits-form";
import { RevokeKeyButton } from "@/components/dashboard/api-keys/revoke-key-button";
import { RevokeCustomerTokensCard } from "@/components/dashboard/api-keys/revoke-customer-tokens-card";

export const metadata = { title: "API keys · Loyalty" };

export default async function ApiKeysPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "apikeys.read");
  // Roles that may not change keys read the same list without its controls.
  const manage = can(staff.role, "apikeys.manage");
  const keys = await apiKeys(await db(), programId);
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">API keys</h1>
      <p className="text-sm text-slate-600">
        Each key answers for one integration. Its token bucket allows <em>burst</em> requests at once, refilled at{" "}
        <em>rate</em> per second; beyond it the API answers 429 with <code className="font-mono">Retry-After</code>.
        {manage ? "" : " Only owners and managers create, change or revoke keys."}
      </p>
      {manage && <ApiKeyForm programId={programId} />}
      <Card title="Keys">
        {keys.length === 0 ? (
          <Empty>No API keys yet.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100">
            {keys.map((k) => (
              <li key={k.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                <div>
                  <p className="font-medium">
                    {k.name} <span className="font-mono text-slate-600">{k.prefix}…</span>{" "}
                    <ActiveBadge active={!k.revokedAt} inactive="revoked" inactiveTone="red" />
                  </p>
                  <p className="text-xs text-slate-600">
                    {formatNumber(k.rateLimitPerSec)}/s, burst {formatNumber(k.rateLimitBurst)} · created{" "}
                    {formatDate(k.createdAt)} · last used {formatDate(k.lastUsedAt)}
                  </p>
                  {manage && !k.revokedAt && (
                    <ApiKeyLimitsForm
                      programId={programId}
                      keyId={k.id}
                      name={k.name}
                      rateLimitPerSec={k.rateLimitPerSec}
                      rateLimitBurst={k.rateLimitBurst}
                      version={k.updatedAt}
                    />
                  )}
                </div>
                {manage && !k.revokedAt && <RevokeKeyButton programId={programId} keyId={k.id} name={k.name} />}
              </li>
            ))}
          </ul>
        )}
      </Card>
      {can(staff.role, "tokens.revoke") && <RevokeCustomerTokensCard programId={programId} />}
    </div>
  );
}
