import { notFound } from "next/navigation";
import { db } from "@/lib/db/client";
import { requirePage } from "@/lib/staff/session";
import { can } from "@/lib/staff/permissions";
import { customerProfile } from "@/lib/staff/queries";
import { Badge, Card, Empty, formatDate, formatNumber } from "@/components/ui";
import { CustomerActions, EditUserData, History } from "@/components/dashboard/customer-forms";

export default async function CustomerPage({ params }: { params: Promise<{ programId: string; customerId: string }> }) {
  const { programId, customerId } = await params;
  const staff = await requirePage(programId, "customers.read");
  if (!/^[0-9a-f-]{36}$/.test(customerId)) notFound();
  const profile = await customerProfile(await db(), programId, customerId);
  if (!profile) notFound();
  const { customer, tiers } = profile;
  const ct = customer.customerTier;
  const current = tiers.find((t) => t.id === ct.currentTierId);
  const next = tiers.find((t) => t.requiredPoints > (current?.requiredPoints ?? -1));
  const progress = next ? Math.min(100, Math.round((ct.currentTierPoints / next.requiredPoints) * 100)) : 100;
  const canWrite = can(staff.role, "customers.write");
  const flags = ["balance", "tier", "rewardAvailable", "location", "marketing"] as const;

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <div>
          <h1 className="break-all text-2xl font-bold">{customer.email}</h1>
          <p className="text-sm text-slate-600">
            {[customer.userData.firstName, customer.userData.lastName].filter(Boolean).join(" ") || "No name"} · member since {formatDate(customer.loyaltyData.memberSince)}
          </p>
        </div>
        <p className="text-3xl font-semibold tabular-nums" aria-label="Balance">
          {formatNumber(customer.loyaltyData.balance)} <span className="text-base font-normal text-slate-600">points</span>
        </p>
      </div>

      <div className="grid gap-4 lg:grid-cols-3">
        <Card title="Tier">
          <p className="flex items-center gap-2 text-lg font-semibold">
            {ct.currentTier?.name ?? "No tier"} <Badge tone={customer.loyaltyData.tierStatus === "base" ? "slate" : "green"}>{customer.loyaltyData.tierStatus}</Badge>
          </p>
          <p className="mt-1 text-sm text-slate-600">Carried: {ct.carryTier?.name ?? "—"} ({formatNumber(ct.carryTierPoints)} points last period)</p>
          <div className="mt-3">
            <div className="flex justify-between text-xs text-slate-600">
              <span>{formatNumber(ct.currentTierPoints)} points this period</span>
              <span>{next ? `${next.name} at ${formatNumber(next.requiredPoints)}` : "Top tier"}</span>
            </div>
            <div className="mt-1 h-2 rounded-full bg-slate-200" role="progressbar" aria-valuenow={progress} aria-valuemin={0} aria-valuemax={100} aria-label="Progress to the next tier">
              <div className="h-2 rounded-full bg-indigo-600" style={{ width: `${progress}%` }} />
            </div>
          </div>
          <p className="mt-3 text-sm text-slate-600">Recalculation: {formatDate(ct.recalculationDate)}</p>
        </Card>
        <Card title="Loyalty data">
          <dl className="grid grid-cols-2 gap-x-2 gap-y-1 text-sm">
            <dt className="text-slate-600">Loyalty id</dt>
            <dd className="truncate font-mono text-xs" title={customer.loyaltyData.loyaltyCustomerId}>{customer.loyaltyData.loyaltyCustomerId}</dd>
            <dt className="text-slate-600">Origin</dt>
            <dd>{customer.origin}</dd>
            <dt className="text-slate-600">Language</dt>
            <dd>{customer.language ?? "—"}</dd>
            <dt className="text-slate-600">External id</dt>
            <dd className="truncate">{customer.userData.externalCustomerId ?? "—"}</dd>
          </dl>
        </Card>
        <Card title="Notification preferences">
          <ul className="space-y-1 text-sm">
            {flags.map((f) => (
              <li key={f} className="flex justify-between">
                <span className="capitalize">{f.replace(/([A-Z])/g, " $1").toLowerCase()}</span>
                <Badge tone={customer[`${f}Notifications`] ? "green" : "slate"}>{customer[`${f}Notifications`] ? "on" : "off"}</Badge>
              </li>
            ))}
          </ul>
        </Card>
      </div>

      <div className="grid gap-4 lg:grid-cols-2">
        <EditUserData programId={programId} customerId={customerId} userData={customer.userData} canWrite={canWrite} />
        <CustomerActions
          programId={programId}
          customerId={customerId}
          email={customer.email}
          rewards={profile.rewards}
          pools={profile.pools}
          canAdjust={can(staff.role, "balance.adjust")}
          canWrite={canWrite}
          canDelete={can(staff.role, "customers.delete")}
        />
      </div>

      <History programId={programId} customerId={customerId} initial={profile.history} />

      <div className="grid gap-4 lg:grid-cols-3">
        <Card title="Redemptions">
          {profile.redemptions.length === 0 ? (
            <Empty>No redemptions yet.</Empty>
          ) : (
            <ul className="divide-y divide-slate-100 text-sm">
              {profile.redemptions.map((r) => (
                <li key={r.id} className="py-2">
                  <span className="font-medium">{r.reward.name}</span> · <span className="font-mono">{r.code}</span>
                  <p className="text-xs text-slate-600">{formatNumber(r.points)} points · {formatDate(r.createdAt)}</p>
                </li>
              ))}
            </ul>
          )}
        </Card>
        <Card title="Coupons">
          {profile.coupons.length === 0 ? (
            <Empty>No coupons assigned.</Empty>
          ) : (
            <ul className="divide-y divide-slate-100 text-sm">
              {profile.coupons.map((c) => (
                <li key={c.id} className="py-2">
                  <span className="font-mono font-medium">{c.code}</span> · {c.pool.name}
                  <p className="text-xs text-slate-600">assigned {formatDate(c.assignedAt)}{c.expiresAt ? ` · expires ${formatDate(c.expiresAt)}` : ""}</p>
                </li>
              ))}
            </ul>
          )}
        </Card>
        <Card title="Notifications">
          {profile.notifications.length === 0 ? (
            <Empty>No notifications sent.</Empty>
          ) : (
            <ul className="divide-y divide-slate-100 text-sm">
              {profile.notifications.map((n) => (
                <li key={n.id} className="py-2">
                  <span className="font-medium">{n.title}</span> <Badge tone={n.status === "delivered" ? "green" : n.status === "failed" ? "red" : "slate"}>{n.status}</Badge>
                  <p className="text-xs text-slate-600">{n.category} · {formatDate(n.createdAt)}</p>
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </div>
  );
}
