import Link from "next/link";
import { notFound } from "next/navigation";
import { db } from "@/lib/db/client";
import { can, isUuid, requirePage } from "@/lib/staff/authz";
import { customerProfile } from "@/lib/staff/queries/customers";
import { programAdjustCeilings } from "@/lib/domain/programs";
import { ceilingFor, ceilingRule } from "@/lib/domain/adjustment-ceilings";
import { Badge, Card, Empty, formatDate, formatNumber } from "@/components/ui";
import { CustomerActions, EditUserData, History } from "@/components/dashboard/customer-forms";

export const metadata = { title: "Customer · Loyalty" };

const FLAGS = [
  ["balanceNotifications", "Balance changes"],
  ["tierNotifications", "Tier changes"],
  ["rewardAvailableNotifications", "Rewards available"],
  ["locationNotifications", "Location"],
  ["marketingNotifications", "Marketing"],
] as const;

const STATUS_TEXT = { base: "base tier", earned: "earned this period", carried: "carried from last period" } as Record<string, string>;

export default async function CustomerPage({ params }: { params: Promise<{ programId: string; customerId: string }> }) {
  const { programId, customerId } = await params;
  const staff = await requirePage(programId, "customers.read");
  if (!isUuid(customerId)) notFound();
  const [profile, ceilings] = await Promise.all([customerProfile(await db(), programId, customerId), programAdjustCeilings(await db(), programId)]);
  if (!profile) notFound();
  const { customer, tiers } = profile;
  const ct = customer.customerTier;
  const current = tiers.find((t) => t.id === ct.currentTierId);
  const next = tiers.find((t) => t.requiredPoints > (current?.requiredPoints ?? -1) && t.requiredPoints > ct.currentTierPoints);
  const progress = next ? Math.min(100, Math.floor((ct.currentTierPoints / Math.max(next.requiredPoints, 1)) * 100)) : 100;
  const name = [customer.userData.firstName, customer.userData.lastName].filter(Boolean).join(" ");

  return (
    <div className="space-y-6">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link href={`/dashboard/${programId}/customers`} className="text-indigo-700 underline decoration-indigo-300 hover:decoration-indigo-700">
          Customers
        </Link>{" "}
        <span aria-hidden="true" className="text-slate-500">
          /
        </span>{" "}
        <span className="text-slate-700">{name || customer.email}</span>
      </nav>
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 className="break-all text-2xl font-bold">{customer.email}</h1>
          <p className="text-sm text-slate-600">
            {name || "No name"} · member since {formatDate(customer.loyaltyData.memberSince)}
          </p>
        </div>
        <p className="text-3xl font-semibold tabular-nums" aria-label="Balance">
          {formatNumber(customer.loyaltyData.balance)} <span className="text-base font-normal text-slate-600">points</span>
        </p>
      </div>

      <div className="grid gap-4 lg:grid-cols-3">
        <Card title="Tier">
          <p className="flex flex-wrap items-center gap-2 text-lg font-semibold">
            {ct.currentTier?.name ?? "No tier"}
            <Badge tone={customer.loyaltyData.tierStatus === "base" ? "slate" : "green"}>{STATUS_TEXT[customer.loyaltyData.tierStatus] ?? customer.loyaltyData.tierStatus}</Badge>
          </p>
          <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
            <dt className="text-slate-600">Carry tier</dt>
            <dd>
              {ct.carryTier?.name ?? "—"} <span className="text-slate-600">({formatNumber(ct.carryTierPoints)} points last period)</span>
            </dd>
            <dt className="text-slate-600">Changed</dt>
            <dd>{formatDate(ct.tierChangedAt)}</dd>
            <dt className="text-slate-600">Recalculation</dt>
            <dd>{formatDate(ct.recalculationDate)}</dd>
          </dl>
          <div className="mt-3">
            <div className="flex flex-wrap justify-between gap-x-2 text-xs text-slate-700">
              <span>{formatNumber(ct.currentTierPoints)} points this period</span>
              <span>{next ? `${formatNumber(next.requiredPoints - ct.currentTierPoints)} more for ${next.name}` : "Top tier reached"}</span>
            </div>
            <div
              className="mt-1 h-2 rounded-full bg-slate-200"
              role="progressbar"
              aria-valuenow={progress}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-label={next ? `Progress to ${next.name}` : "Progress to the next tier"}
            >
              <div className="h-2 rounded-full bg-indigo-600" style={{ width: `${progress}%` }} />
            </div>
          </div>
        </Card>
        <Card title="Loyalty data">
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
            <dt className="text-slate-600">Loyalty id</dt>
            <dd className="truncate font-mono text-xs leading-5" title={customer.loyaltyData.loyaltyCustomerId}>
              {customer.loyaltyData.loyaltyCustomerId}
            </dd>
            <dt className="text-slate-600">Balance</dt>
            <dd className="tabular-nums">{formatNumber(customer.loyaltyData.balance)}</dd>
            <dt className="text-slate-600">Origin</dt>
            <dd>{customer.origin}</dd>
            <dt className="text-slate-600">Language</dt>
            <dd>{customer.language ?? "—"}</dd>
            <dt className="text-slate-600">Referral</dt>
            <dd className="truncate">{customer.referral ?? "—"}</dd>
            <dt className="text-slate-600">Updated</dt>
            <dd>{formatDate(customer.updatedAt)}</dd>
          </dl>
        </Card>
        <Card title="Notification preferences">
          <ul className="space-y-1 text-sm">
            {FLAGS.map(([flag, label]) => (
              <li key={flag} className="flex justify-between gap-2">
                <span>{label}</span>
                <Badge tone={customer[flag] ? "green" : "slate"}>{customer[flag] ? "on" : "off"}</Badge>
              </li>
            ))}
          </ul>
        </Card>
      </div>

      <div className="grid gap-4 lg:grid-cols-2">
        <EditUserData programId={programId} customerId={customerId} email={customer.email} userData={customer.userData} canEdit={can(staff.role, "customers.edit")} />
        <CustomerActions
          programId={programId}
          customerId={customerId}
          email={customer.email}
          rewards={profile.rewards}
          pools={profile.pools}
          adjustLimit={{ ceiling: ceilingFor(staff.role, ceilings), rule: ceilingRule(staff.role, ceilings) }}
          can={{
            adjust: can(staff.role, "balance.adjust"),
            redeem: can(staff.role, "rewards.redeem"),
            assign: can(staff.role, "coupons.assign"),
            notify: can(staff.role, "notifications.send"),
            delete: can(staff.role, "customers.delete"),
          }}
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
                  <p className="text-xs text-slate-600">
                    {formatNumber(r.points)} points · {formatDate(r.createdAt)}
                  </p>
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
                  <p className="text-xs text-slate-600">
                    assigned {formatDate(c.assignedAt)}
                    {c.expiresAt ? ` · expires ${formatDate(c.expiresAt)}` : ""}
                  </p>
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
                  <span className="font-medium">{n.title}</span>{" "}
                  <Badge tone={n.status === "delivered" ? "green" : n.status === "failed" ? "red" : n.status === "suppressed" ? "amber" : "slate"}>{n.status}</Badge>
                  <p className="text-xs text-slate-600">
                    {n.category} · {formatDate(n.createdAt)}
                  </p>
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </div>
  );
}
