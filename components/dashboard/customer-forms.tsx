"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { toast } from "sonner";
import { staffFetch, StaffApiError } from "@/lib/staff/client";
import { Badge, Card, Empty, Field, buttonClass, dangerButtonClass, formatDate, formatNumber, inputClass, secondaryButtonClass } from "@/components/ui";

interface UserData {
  externalCustomerId: string | null;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  birthdate: string | null;
  emailVerified: boolean;
}

/** After a write: refresh the server-rendered page and the client caches that show the customer. */
function useAfterWrite(customerId: string) {
  const router = useRouter();
  const queryClient = useQueryClient();
  return () => {
    router.refresh();
    void queryClient.invalidateQueries({ queryKey: ["history", customerId] });
    void queryClient.invalidateQueries({ queryKey: ["search"] });
  };
}

const blankToNull = (v: FormDataEntryValue | null) => {
  const s = String(v ?? "").trim();
  return s === "" ? null : s;
};

export function EditUserData({ programId, customerId, userData, canWrite }: { programId: string; customerId: string; userData: UserData; canWrite: boolean }) {
  const afterWrite = useAfterWrite(customerId);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) => staffFetch("PATCH", `/api/staff/${programId}/customers/${customerId}`, body),
    onSuccess: () => {
      setErrors({});
      toast.success("User data saved");
      afterWrite();
    },
    onError: (err) => {
      if (err instanceof StaffApiError) setErrors(err.fields);
      toast.error(err.message);
    },
  });
  const fields = [
    ["firstName", "First name"],
    ["lastName", "Last name"],
    ["phone", "Phone"],
    ["externalCustomerId", "External customer id"],
    ["birthdate", "Birthdate (YYYY-MM-DD)"],
  ] as const;
  return (
    <Card title="User data">
      <form
        className="grid gap-3 sm:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const body: Record<string, unknown> = Object.fromEntries(fields.map(([name]) => [name, blankToNull(form.get(name))]));
          body.emailVerified = form.get("emailVerified") === "on";
          save.mutate(body);
        }}
      >
        {fields.map(([name, label]) => (
          <Field key={name} label={label} htmlFor={`ud-${name}`} error={errors[name]}>
            <input id={`ud-${name}`} name={name} defaultValue={userData[name] ?? ""} disabled={!canWrite} className={inputClass} aria-invalid={!!errors[name]} />
          </Field>
        ))}
        <label className="flex items-center gap-2 self-end text-sm text-slate-800">
          <input type="checkbox" name="emailVerified" defaultChecked={userData.emailVerified} disabled={!canWrite} className="h-4 w-4" />
          E-mail verified
        </label>
        {canWrite && (
          <div className="sm:col-span-2">
            <button type="submit" className={buttonClass} disabled={save.isPending}>
              {save.isPending ? "Saving…" : "Save user data"}
            </button>
          </div>
        )}
      </form>
    </Card>
  );
}

interface Props {
  programId: string;
  customerId: string;
  email: string;
  rewards: { id: string; name: string; costPoints: number; stock: number | null }[];
  pools: { id: string; name: string }[];
  canAdjust: boolean;
  canWrite: boolean;
  canDelete: boolean;
}

export function CustomerActions({ programId, customerId, email, rewards, pools, canAdjust, canWrite, canDelete }: Props) {
  const afterWrite = useAfterWrite(customerId);
  const router = useRouter();
  const base = `/api/staff/${programId}/customers/${customerId}`;
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [confirm, setConfirm] = useState("");
  const act = useMutation({
    mutationFn: ({ method, path, body }: { method: string; path: string; body?: unknown; done: string }) => staffFetch(method, `${base}${path}`, body),
    onSuccess: (_data, vars) => {
      setErrors({});
      toast.success(vars.done);
      if (vars.method === "DELETE") router.push(`/dashboard/${programId}/customers`);
      else afterWrite();
    },
    onError: (err) => {
      if (err instanceof StaffApiError) setErrors(err.fields);
      toast.error(err.message);
    },
  });
  if (!canAdjust && !canWrite && !canDelete) {
    return (
      <Card title="Actions">
        <Empty>Your role can view this customer but not change it.</Empty>
      </Card>
    );
  }
  return (
    <Card title="Actions">
      <div className="space-y-5">
        {canAdjust && (
          <form
            className="space-y-2"
            aria-label="Adjust balance"
            onSubmit={(e) => {
              e.preventDefault();
              const form = new FormData(e.currentTarget);
              const points = Number(form.get("points")) * (form.get("direction") === "down" ? -1 : 1);
              act.mutate({ method: "POST", path: "/balance", body: { points, reason: String(form.get("reason") ?? "") }, done: "Balance adjusted" });
            }}
          >
            <h3 className="text-sm font-semibold">Adjust balance</h3>
            <div className="grid gap-2 sm:grid-cols-[auto_8rem_1fr_auto] sm:items-end">
              <Field label="Direction" htmlFor="direction">
                <select id="direction" name="direction" className={inputClass}>
                  <option value="up">Add</option>
                  <option value="down">Take</option>
                </select>
              </Field>
              <Field label="Points" htmlFor="points" error={errors.points}>
                <input id="points" name="points" type="number" min={1} step={1} required className={inputClass} />
              </Field>
              <Field label="Reason" htmlFor="reason" error={errors.reason}>
                <input id="reason" name="reason" required className={inputClass} placeholder="Goodwill for a late delivery" />
              </Field>
              <button className={buttonClass} disabled={act.isPending} type="submit">
                Apply
              </button>
            </div>
          </form>
        )}
        {canWrite && rewards.length > 0 && (
          <form
            className="flex flex-wrap items-end gap-2"
            aria-label="Redeem a reward"
            onSubmit={(e) => {
              e.preventDefault();
              const rewardId = String(new FormData(e.currentTarget).get("rewardId"));
              act.mutate({ method: "POST", path: "/redeem", body: { rewardId }, done: "Reward redeemed" });
            }}
          >
            <div className="min-w-48 flex-1">
              <Field label="Redeem a reward" htmlFor="rewardId">
                <select id="rewardId" name="rewardId" className={inputClass}>
                  {rewards.map((r) => (
                    <option key={r.id} value={r.id}>
                      {r.name} · {formatNumber(r.costPoints)} pts{r.stock !== null ? ` · ${r.stock} left` : ""}
                    </option>
                  ))}
                </select>
              </Field>
            </div>
            <button className={secondaryButtonClass} disabled={act.isPending} type="submit">
              Redeem
            </button>
          </form>
        )}
        {canWrite && pools.length > 0 && (
          <form
            className="flex flex-wrap items-end gap-2"
            aria-label="Assign a coupon"
            onSubmit={(e) => {
              e.preventDefault();
              const couponPoolId = String(new FormData(e.currentTarget).get("couponPoolId"));
              act.mutate({ method: "POST", path: "/coupons", body: { couponPoolId }, done: "Coupon assigned" });
            }}
          >
            <div className="min-w-48 flex-1">
              <Field label="Assign a coupon from" htmlFor="couponPoolId">
                <select id="couponPoolId" name="couponPoolId" className={inputClass}>
                  {pools.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.name}
                    </option>
                  ))}
                </select>
              </Field>
            </div>
            <button className={secondaryButtonClass} disabled={act.isPending} type="submit">
              Assign
            </button>
          </form>
        )}
        {canWrite && (
          <form
            className="grid gap-2 sm:grid-cols-2"
            aria-label="Send a notification"
            onSubmit={(e) => {
              e.preventDefault();
              const form = new FormData(e.currentTarget);
              act.mutate({
                method: "POST",
                path: "/notifications",
                body: { title: form.get("title"), body: form.get("body"), category: form.get("category") },
                done: "Notification sent",
              });
            }}
          >
            <h3 className="text-sm font-semibold sm:col-span-2">Send a notification</h3>
            <Field label="Title" htmlFor="n-title" error={errors.title}>
              <input id="n-title" name="title" required className={inputClass} />
            </Field>
            <Field label="Category" htmlFor="n-category">
              <select id="n-category" name="category" className={inputClass}>
                {["balance", "tier", "rewardAvailable", "location", "marketing"].map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </Field>
            <div className="sm:col-span-2">
              <Field label="Message" htmlFor="n-body" error={errors.body}>
                <textarea id="n-body" name="body" required rows={2} className={inputClass} />
              </Field>
            </div>
            <div>
              <button className={secondaryButtonClass} disabled={act.isPending} type="submit">
                Send
              </button>
            </div>
          </form>
        )}
        {canDelete && (
          <form
            className="space-y-2 rounded-md border border-red-200 bg-red-50 p-3"
            aria-label="Delete customer"
            onSubmit={(e) => {
              e.preventDefault();
              act.mutate({ method: "DELETE", path: "", done: "Customer deleted" });
            }}
          >
            <h3 className="text-sm font-semibold text-red-900">Delete customer</h3>
            <p className="text-xs text-red-900">Erases personal data; the anonymised points history stays. Type the e-mail to confirm.</p>
            <label htmlFor="confirm-delete" className="sr-only">
              Type the customer&apos;s e-mail to confirm
            </label>
            <input id="confirm-delete" value={confirm} onChange={(e) => setConfirm(e.target.value)} className={inputClass} placeholder={email} />
            <button className={dangerButtonClass} disabled={confirm.trim().toLowerCase() !== email || act.isPending} type="submit">
              Delete permanently
            </button>
          </form>
        )}
      </div>
    </Card>
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
      staffFetch<Page>("GET", `/api/staff/${programId}/customers/${customerId}/transactions${pageParam ? `?cursor=${pageParam}` : ""}`),
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
        <div className="overflow-x-auto">
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
                  <td className={`py-2 pr-4 text-right tabular-nums ${e.points > 0 ? "text-emerald-800" : "text-amber-900"}`}>
                    {e.points > 0 ? "+" : ""}
                    {formatNumber(e.points)}
                  </td>
                  <td className="py-2 pr-4 text-right tabular-nums">{formatNumber(e.balanceAfter)}</td>
                  <td className="py-2 pr-4">{e.reason ?? "—"}</td>
                  <td className="hidden py-2 text-slate-600 md:table-cell">{e.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {query.hasNextPage && (
        <button className={`${secondaryButtonClass} mt-3`} onClick={() => query.fetchNextPage()} disabled={query.isFetchingNextPage}>
          {query.isFetchingNextPage ? "Loading…" : "Load older entries"}
        </button>
      )}
    </Card>
  );
}
