import { Badge, CardList, formatDate, formatNumber, type Tone } from "@/components/ui";
import type { CustomerProfile } from "./profile";

/** The customer page's latest redemptions, coupons and notifications (20 of each, newest first). */

export function RedemptionsCard({ redemptions }: { redemptions: CustomerProfile["redemptions"] }) {
  return (
    <CardList title="Redemptions" items={redemptions} empty="No redemptions yet.">
      {(r) => (
        <>
          <span className="font-medium">{r.reward.name}</span> · <span className="font-mono">{r.code}</span>
          <p className="text-xs text-slate-600">
            {formatNumber(r.points)} points · {formatDate(r.createdAt)}
          </p>
        </>
      )}
    </CardList>
  );
}

export function CouponsCard({ coupons }: { coupons: CustomerProfile["coupons"] }) {
  return (
    <CardList title="Coupons" items={coupons} empty="No coupons assigned.">
      {(c) => (
        <>
          <span className="font-mono font-medium">{c.code}</span> · {c.pool.name}
          <p className="text-xs text-slate-600">
            assigned {formatDate(c.assignedAt)}
            {c.expiresAt ? ` · expires ${formatDate(c.expiresAt)}` : ""}
          </p>
        </>
      )}
    </CardList>
  );
}

const NOTIFICATION_TONE: Record<string, Tone> = { delivered: "green", failed: "red", suppressed: "amber" };

export function NotificationsCard({ notifications }: { notifications: CustomerProfile["notifications"] }) {
  return (
    <CardList title="Notifications" items={notifications} empty="No notifications sent.">
      {(n) => (
        <>
          <span className="font-medium">{n.title}</span>{" "}
          <Badge tone={NOTIFICATION_TONE[n.status] ?? "slate"}>{n.status}</Badge>
          <p className="text-xs text-slate-600">
            {n.category} · {formatDate(n.createdAt)}
          </p>
        </>
      )}
    </CardList>
  );
}
