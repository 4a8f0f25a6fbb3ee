"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { staffFetch, useStaffWrite } from "@/lib/staff/client";
import { balanceAdjustmentWithin, CouponForm, NotificationForm, RedeemForm, UserDataEdit } from "@/lib/staff/forms";
import { Badge, Card, Empty, Field, buttonClass, dangerButtonClass, formatDate, formatNumber, inputClass, secondaryButtonClass, TableScroll } from "@/components/ui";

interface UserData {
  externalCustomerId: string | null;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  birthdate: string | null;
  emailVerified: boolean;
}

/** What a write changes on the customer page: its history and any search result showing the customer. */
const customerKeys = (customerId: string) => [["history", customerId], ["search"]];

const text = (form: FormData, name: string) => {
  const s = String(form.get(name) ?? "").trim();
  return s === "" ? null : s;
};

const USER_FIELDS = [
  ["firstName", "First name", "given-name"],
  ["lastName", "Last name", "family-name"],
  ["phone", "Phone", "tel"],
  ["externalCustomerId", "External customer id", "off"],
  ["birthdate", "Birthdate (YYYY-MM-DD)", "off"],
] as const;

export function EditUserData({ programId, customerId, email, userData, canEdit }: { programId: string; customerId: string; email: string; userData: UserData; canEdit: boolean }) {
  const save = useStaffWrite({
    schema: UserDataEdit,
    method: "PATCH",
    url: `/api/staff/${programId}/customers/${customerId}`,
    success: "User data saved",
    invalidate: customerKeys(customerId),
  });
  return (
    <Card title="User data">
      <form
        className="grid gap-3 sm:grid-cols-2"
        aria-label="User data"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const body: Record<string, unknown> = Object.fromEntries(USER_FIELDS.map(([name]) => [name, text(form, name)]));
          body.emailVerified = form.get("emailVerified") === "on";
          const newEmail = text(form, "email");
          if (newEmail !== email) body.email = newEmail ?? "";
          save.submit(body);
        }}
      >
        <div className="sm:col-span-2">
          <Field label="E-mail" htmlFor="ud-email" error={save.errors.email} hint="Changing it renames the customer for the API too.">
            <input id="ud-email" name="email" type="email" defaultValue={email} disabled={!canEdit} className={inputClass} aria-invalid={!!save.errors.email} autoComplete="off" />
          </Field>
        </div>
        {USER_FIELDS.map(([name, label, autoComplete]) => (
          <Field key={name} label={label} htmlFor={`ud-${name}`} error={save.errors[name]}>
            <input
              id={`ud-${name}`}
              name={name}
              defaultValue={userData[name] ?? ""}
              disabled={!canEdit}
              className={inputClass}
              aria-invalid={!!save.errors[name]}
              autoComplete={autoComplete}
            />
          </Field>
        ))}
        <label className="flex items-center gap-2 self-end pb-2 text-sm text-slate-800">
          <input type="checkbox" name="emailVerified" defaultChecked={userData.emailVerified} disabled={!canEdit} className="h-4 w-4 accent-indigo-600" />
          E-mail verified
        </label>
        {canEdit && (
          <div className="sm:col-span-2">
            <button type="submit" className={buttonClass} disabled={save.pending}>
              {save.pending ? "Saving…" : "Save user data"}
            </button>
          </div>
        )}
      </form>
    </Card>
  );
}

export interface CustomerPermissions {
  adjust: boolean;
  redeem: boolean;
  assign: boolean;
  notify: boolean;
  delete: boolean;
}

interface ActionsProps {
  programId: string;
  customerId: string;
  email: string;
  rewards: { id: string; name: string; costPoints: number; stock: number | null }[];
  pools: { id: string; name: string }[];
  can: CustomerPermissions;
  /** The staff member's adjustment ceiling in points (null: none) and its rule in words, shown with the form. */
  adjustLimit: AdjustLimit;
}

export interface AdjustLimit {
  ceiling: number | null;
  rule: string | null;
}

export function CustomerActions({ programId, customerId, email, rewards, pools, can, adjustLimit }: ActionsProps) {
  if (!Object.values(can).some(Boolean)) {
    return (
      <Card title="Actions">
        <Empty>Your role can view this customer but not change it.</Empty>
      </Card>
    );
  }
  const base = `/api/staff/${programId}/customers/${customerId}`;
  return (
    <Card title="Actions">
      <div className="divide-y divide-slate-100 [&>*]:py-4 [&>*:first-child]:pt-0 [&>*:last-child]:pb-0">
        {can.adjust && <AdjustBalance url={`${base}/balance`} customerId={customerId} limit={adjustLimit} />}
        {can.redeem && <RedeemReward url={`${base}/redeem`} customerId={customerId} rewards={rewards} />}
        {can.assign && <AssignCoupon url={`${base}/coupons`} customerId={customerId} pools={pools} />}
        {can.notify && <Notify url={`${base}/notifications`} customerId={customerId} />}
        {can.delete && <DeleteCustomer url={base} programId={programId} email={email} />}
      </div>
    </Card>
  );
}

function AdjustBalance({ url, customerId, limit }: { url: string; customerId: string; limit: AdjustLimit }) {
  // The server refuses above the ceiling too (adjustment_above_ceiling); checking here says so before sending.
  const schema = useMemo(() => balanceAdjustmentWithin(limit.ceiling, limit.rule), [limit.ceiling, limit.rule]);
  const adjust = useStaffWrite({ schema, method: "POST", url, success: "Balance adjusted", invalidate: customerKeys(customerId) });
  return (
    <form
      aria-label="Adjust balance"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const target = e.currentTarget;
        const form = new FormData(target);
        const raw = String(form.get("points") ?? "").trim();
        const points = raw === "" ? Number.NaN : Number(raw) * (form.get("direction") === "down" ? -1 : 1);
        if (adjust.submit({ points, reason: String(form.get("reason") ?? "") })) target.reset();
      }}
    >
      <h3 className="text-sm font-semibold text-slate-900">Adjust balance</h3>
      <p className="text-xs text-slate-600">
        Recorded in the points history with your name and the reason.{limit.rule ? ` ${limit.rule}.` : ""}
      </p>
      <div className="mt-2 grid grid-cols-2 gap-2">
        <Field label="Direction" htmlFor="direction">
          <select id="direction" name="direction" className={inputClass}>
            <option value="up">Add</option>
            <option value="down">Take</option>
          </select>
        </Field>
        <Field label="Points" htmlFor="points" error={adjust.errors.points}>
          <input id="points" name="points" type="number" inputMode="numeric" min={1} step={1} className={inputClass} aria-invalid={!!adjust.errors.points} />
        </Field>
        <div className="col-span-2">
          <Field label="Reason" htmlFor="reason" error={adjust.errors.reason}>
            <input id="reason" name="reason" className={inputClass} placeholder="Goodwill for a late delivery" aria-invalid={!!adjust.errors.reason} />
          </Field>
        </div>
        <div>
          <button className={buttonClass} disabled={adjust.pending} type="submit">
            {adjust.pending ? "Applying…" : "Apply"}
          </button>
        </div>
      </div>
    </form>
  );
}

function RedeemReward({ url, customerId, rewards }: { url: string; customerId: string; rewards: ActionsProps["rewards"] }) {
  const redeem = useStaffWrite<typeof RedeemForm, { redemption: { code: string } }>({
    schema: RedeemForm,
    method: "POST",
    url,
    success: (data) => `Reward redeemed: code ${data.redemption.code}`,
    invalidate: customerKeys(customerId),
  });
  if (rewards.length === 0) return <p className="text-sm text-slate-600">No active rewards to redeem in this program.</p>;
  return (
    <form
      className="flex flex-wrap items-end gap-2"
      aria-label="Redeem a reward"
      onSubmit={(e) => {
        e.preventDefault();
        redeem.submit({ rewardId: String(new FormData(e.currentTarget).get("rewardId")) });
      }}
    >
      <div className="min-w-48 flex-1">
        <Field label="Redeem a reward" htmlFor="rewardId" error={redeem.errors.rewardId}>
          <select id="rewardId" name="rewardId" className={inputClass}>
            {rewards.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name} · {formatNumber(r.costPoints)} pts{r.stock !== null ? ` · ${r.stock} left` : ""}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <button className={secondaryButtonClass} disabled={redeem.pending} type="submit">
        Redeem
      </button>
    </form>
  );
}

function AssignCoupon({ url, customerId, pools }: { url: string; customerId: string; pools: ActionsProps["pools"] }) {
  const assign = useStaffWrite<typeof CouponForm, { coupon: { code: string } }>({
    schema: CouponForm,
    method: "POST",
    url,
    success: (data) => `Coupon ${data.coupon.code} assigned`,
    invalidate: customerKeys(customerId),
  });
  if (pools.length === 0) return <p className="text-sm text-slate-600">No coupon pools in this program.</p>;
  return (
    <form
      className="flex flex-wrap items-end gap-2"
      aria-label="Assign a coupon"
      onSubmit={(e) => {
        e.preventDefault();
        assign.submit({ couponPoolId: String(new FormData(e.currentTarget).get("couponPoolId")) });
      }}
    >
      <div className="min-w-48 flex-1">
        <Field label="Assign a coupon from" htmlFor="couponPoolId" error={assign.errors.couponPoolId}>
          <select id="couponPoolId" name="couponPoolId" className={inputClass}>
            {pools.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <button className={secondaryButtonClass} disabled={assign.pending} type="submit">
        Assign
      </button>
    </form>
  );
}

const CATEGORY_LABELS = { balance: "Balance", tier: "Tier", rewardAvailable: "Reward available", location: "Location", marketing: "Marketing" } as const;

function Notify({ url, customerId }: { url: string; customerId: string }) {
  const notify = useStaffWrite<typeof NotificationForm, { notification: { status: string } }>({
    schema: NotificationForm,
    method: "POST",
    url,
    success: (data) => (data.notification.status === "suppressed" ? "Not sent: the customer turned this category off" : "Notification queued"),
    invalidate: customerKeys(customerId),
  });
  return (
    <form
      className="grid gap-2 sm:grid-cols-2"
      aria-label="Send a notification"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const target = e.currentTarget;
        const form = new FormData(target);
        if (notify.submit({ title: String(form.get("title") ?? ""), body: String(form.get("body") ?? ""), category: String(form.get("category")) as "balance" })) {
          target.reset();
        }
      }}
    >
      <h3 className="text-sm font-semibold text-slate-900 sm:col-span-2">Send a push notification</h3>
      <Field label="Title" htmlFor="n-title" error={notify.errors.title}>
        <input id="n-title" name="title" maxLength={120} className={inputClass} aria-invalid={!!notify.errors.title} />
      </Field>
      <Field label="Category" htmlFor="n-category">
        <select id="n-category" name="category" className={inputClass}>
          {Object.entries(CATEGORY_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <div className="sm:col-span-2">
        <Field label="Message" htmlFor="n-body" error={notify.errors.body}>
          <textarea id="n-body" name="body" rows={2} maxLength={1000} className={inputClass} aria-invalid={!!notify.errors.body} />
        </Field>
      </div>
      <div>
        <button className={secondaryButtonClass} disabled={notify.pending} type="submit">
          Send
        </button>
      </div>
    </form>
  );
}

function DeleteCustomer({ url, programId, email }: { url: string; programId: string; email: string }) {
  const router = useRouter();
  const [confirm, setConfirm] = useState("");
  const remove = useStaffWrite({
    method: "DELETE",
    url,
    success: "Customer deleted",
    invalidate: [["search"]],
    onSuccess: () => router.push(`/dashboard/${programId}/customers`),
  });
  const matches = confirm.trim().toLowerCase() === email;
  return (
    <form
      className="space-y-2"
      aria-label="Delete customer"
      onSubmit={(e) => {
        e.preventDefault();
        if (matches) remove.submit();
      }}
    >
      <div className="rounded-md border border-red-200 bg-red-50 p-3">
        <h3 className="text-sm font-semibold text-red-900">Delete customer</h3>
        <p className="mt-1 text-xs text-red-900">
          Erases the personal data at once and for good; the anonymised points history stays in the program totals. Type{" "}
          <span className="break-all font-mono">{email}</span> to confirm.
        </p>
        <div className="mt-2 flex flex-wrap gap-2">
          <label htmlFor="confirm-delete" className="sr-only">
            Type the customer&apos;s e-mail to confirm
          </label>
          <input id="confirm-delete" value={confirm} onChange={(e) => setConfirm(e.target.value)} className={`${inputClass} min-w-0 flex-1`} autoComplete="off" />
          <button className={dangerButtonClass} disabled={!matches || remove.pending} type="submit">
            Delete permanently
          </button>
        </div>
      </div>
    </form>
  );
}

interface Entry {
  id: string;
  type: string;
  points: number;
  balanceAfter: number;
  reason: string | null;
  source: string;
  actor: string;
  createdAt: string;
}
type Page = { data: Entry[]; nextCursor: string | null };

export function History({ programId, customerId, initial }: { programId: string; customerId: string; initial: Page }) {
  const query = useInfiniteQuery({
    queryKey: ["history", customerId],
    queryFn: ({ pageParam }) =>
      staffFetch<Page>("GET", `/api/staff/${programId}/customers/${customerId}/transactions${pageParam ? `?cursor=${encodeURIComponent(pageParam)}` : ""}`),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    initialData: { pages: [initial], pageParams: [null] },
  });
  const entries = query.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Card title="Points history">
      {entries.length === 0 ? (
        <Empty>No points movements yet.</Empty>
      ) : (
        <TableScroll>
          <table className="min-w-full text-sm" aria-label="Points history">
            <thead className="text-left text-xs font-semibold uppercase tracking-wide text-slate-700">
              <tr>
                <th scope="col" className="py-2 pr-4">When</th>
                <th scope="col" className="py-2 pr-4">Type</th>
                <th scope="col" className="py-2 pr-4 text-right">Points</th>
                <th scope="col" className="py-2 pr-4 text-right">Balance</th>
                <th scope="col" className="py-2 pr-4">Reason</th>
                <th scope="col" className="hidden py-2 md:table-cell">Source</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {entries.map((e) => (
                <tr key={e.id}>
                  <td className="whitespace-nowrap py-2 pr-4 text-slate-600">{formatDate(e.createdAt)}</td>
                  <td className="py-2 pr-4">
                    <Badge tone={e.points > 0 ? "green" : "amber"}>{e.type}</Badge>
                  </td>
                  <td className={`whitespace-nowrap py-2 pr-4 text-right tabular-nums ${e.points > 0 ? "text-emerald-800" : "text-amber-900"}`}>
                    {e.points > 0 ? "+" : ""}
                    {formatNumber(e.points)}
                  </td>
                  <td className="py-2 pr-4 text-right tabular-nums">{formatNumber(e.balanceAfter)}</td>
                  <td className="min-w-40 py-2 pr-4">{e.reason ?? "—"}</td>
                  <td className="hidden py-2 text-slate-600 md:table-cell">{e.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {query.isError && (
        <p className="mt-2 text-sm text-red-700" role="alert">
          Could not load older entries: {query.error.message}
        </p>
      )}
      {query.hasNextPage && (
        <button className={`${secondaryButtonClass} mt-3`} onClick={() => query.fetchNextPage()} disabled={query.isFetchingNextPage}>
          {query.isFetchingNextPage ? "Loading…" : "Load older entries"}
        </button>
      )}
    </Card>
  );
}
