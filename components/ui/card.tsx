import clsx from "clsx";

/** The one place for the dashboard's boxes: a titled card, a figure, an empty state and a status badge. */

export function Card({
  title,
  actions,
  children,
  className,
}: {
  title?: string;
  actions?: React.ReactNode;
  children: React.ReactNode;
  className?: string;
}) {
  return (
    <section className={clsx("rounded-lg border border-slate-200 bg-white shadow-sm", className)} aria-label={title}>
      {(title || actions) && (
        <header className="flex items-center justify-between gap-2 border-b border-slate-100 px-4 py-3">
          {title && <h2 className="text-sm font-semibold text-slate-800">{title}</h2>}
          {actions}
        </header>
      )}
      <div className="p-4">{children}</div>
    </section>
  );
}

export function Stat({ label, value, hint }: { label: string; value: React.ReactNode; hint?: string }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <p className="text-xs font-medium uppercase tracking-wide text-slate-600">{label}</p>
      <p className="mt-1 text-2xl font-semibold tabular-nums text-slate-900">{value}</p>
      {hint && <p className="mt-1 text-xs text-slate-600">{hint}</p>}
    </div>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return (
    <p className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600">
      {children}
    </p>
  );
}

export type Tone = "slate" | "green" | "amber" | "red" | "indigo";

const TONES: Record<Tone, string> = {
  slate: "bg-slate-100 text-slate-700",
  green: "bg-emerald-100 text-emerald-800",
  amber: "bg-amber-100 text-amber-900",
  red: "bg-red-100 text-red-800",
  indigo: "bg-indigo-100 text-indigo-800",
};

export function Badge({ children, tone = "slate" }: { children: React.ReactNode; tone?: Tone }) {
  return (
    <span
      className={clsx(
        "inline-flex items-center whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium",
        TONES[tone],
      )}
    >
      {children}
    </span>
  );
}

/** "active" in green or the given word in grey: the status column of rewards, flows, webhooks, keys and staff. */
export function ActiveBadge({
  active,
  inactive = "inactive",
  inactiveTone = "slate",
}: {
  active: boolean;
  inactive?: string;
  inactiveTone?: Tone;
}) {
  return active ? <Badge tone="green">active</Badge> : <Badge tone={inactiveTone}>{inactive}</Badge>;
}

/** A list inside a card, or its empty state: the customer page's redemptions, coupons and notifications. */
export function CardList<T extends { id: string }>({
  title,
  items,
  empty,
  children,
}: {
  title: string;
  items: readonly T[];
  empty: string;
  children: (item: T) => React.ReactNode;
}) {
  return (
    <Card title={title}>
      {items.length === 0 ? (
        <Empty>{empty}</Empty>
      ) : (
        <ul className="divide-y divide-slate-100 text-sm">
          {items.map((item) => (
            <li key={item.id} className="py-2">
              {children(item)}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
