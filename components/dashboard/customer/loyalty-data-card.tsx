import { Badge, Card, formatDate, formatNumber } from "@/components/ui";
import type { CustomerData } from "./profile";

/** The customer page's loyalty data: ids, balance, origin, language, referral. */
export function LoyaltyDataCard({ customer }: { customer: CustomerData }) {
  return (
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
  );
}

export const NOTIFICATION_FLAGS = [
  ["balanceNotifications", "Balance changes"],
  ["tierNotifications", "Tier changes"],
  ["rewardAvailableNotifications", "Rewards available"],
  ["locationNotifications", "Location"],
  ["marketingNotifications", "Marketing"],
] as const;

/** The customer page's notification switches, as the customer set them through the API. */
export function NotificationPreferencesCard({ customer }: { customer: CustomerData }) {
  return (
    <Card title="Notification preferences">
      <ul className="space-y-1 text-sm">
        {NOTIFICATION_FLAGS.map(([flag, label]) => (
          <li key={flag} className="flex justify-between gap-2">
            <span>{label}</span>
            <Badge tone={customer[flag] ? "green" : "slate"}>{customer[flag] ? "on" : "off"}</Badge>
          </li>
        ))}
      </ul>
    </Card>
  );
}
