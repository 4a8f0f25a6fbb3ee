import Link from "next/link";
import { notFound } from "next/navigation";
import { db } from "@/lib/db/client";
import { memberOf } from "@/lib/domain/vocabulary";
import { requirePage } from "@/lib/staff/session";
import { firstParams } from "@/lib/staff/search-params";
import {
  COUPON_CODE_STATUSES,
  couponCodes,
  programCouponPool,
  type CouponCodeStatus,
} from "@/lib/staff/queries/catalogue";

import {
  ActiveBadge,
  Badge,
  Card,
  FilterForm,
  FilterSelect,
  InputField,
  KeysetPager,
  Table,
  formatDate,
} from "@/components/ui";

const TONE = { available: "green", assigned: "indigo", expired: "slate" } as const;

const COLUMNS = [
  { label: "Code" },
  { label: "Status" },
  { label: "Customer" },
  { label: "Assigned" },
  { label: "Expires" },
] as const;

/** A pool's codes for every role: searchable by code prefix and status, keyset-paged in code order. */
export default async function CouponPoolCodesPage(props: {
  params: Promise<{ programId: string; poolId: string }>;
  searchParams: Promise<Partial<Record<"prefix" | "status" | "after", string | string[]>>>;
}) {
  const { programId, poolId } = await props.params;
  await requirePage(programId, "program.read");
  const search = await firstParams(props.searchParams);
  const database = await db();
  const pool = await programCouponPool(database, programId, poolId);
  if (!pool) notFound();
  const status =
    search.status && (COUPON_CODE_STATUSES as readonly string[]).includes(search.status)
      ? memberOf(COUPON_CODE_STATUSES, search.status)
      : undefined;
  const prefix = search.prefix?.trim().slice(0, 64) || undefined;
  const page = await couponCodes(database, poolId, { prefix, status, after: search.after });
  const filters = Object.fromEntries(Object.entries({ prefix, status }).filter((e): e is [string, string] => !!e[1]));
  return (
    <div className="space-y-4">
      <p className="text-sm">
        <Link className="text-indigo-700 hover:underline" href={`/dashboard/${programId}/coupons`}>
          ← Coupon pools
        </Link>
      </p>
      <h1 className="flex flex-wrap items-center gap-3 text-2xl font-bold">
        {pool.name} <ActiveBadge active={pool.active} />
      </h1>
      <Card title="Codes">
        <FilterForm label="Filter codes" role="search" filtered={!!(prefix || status)} className="mb-4">
          <div className="min-w-48">
            <InputField
              label="Code starts with"
              id="prefix"
              name="prefix"
              defaultValue={prefix ?? ""}
              autoCapitalize="none"
              spellCheck={false}
            />
          </div>
          <FilterSelect name="status" label="Status" value={status ?? ""} all="Any status">
            {COUPON_CODE_STATUSES.map((s: CouponCodeStatus) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </FilterSelect>
        </FilterForm>
        <Table label="Coupon codes" columns={COLUMNS} rows={page.rows} empty="No codes match.">
          {(c) => (
            <tr key={c.code}>
              <td className="px-4 py-2 font-mono">{c.code}</td>
              <td className="px-4 py-2">
                <Badge tone={TONE[c.status]}>{c.status}</Badge>
              </td>
              <td className="px-4 py-2">{c.email ?? "—"}</td>
              <td className="whitespace-nowrap px-4 py-2">{formatDate(c.assignedAt)}</td>
              <td className="whitespace-nowrap px-4 py-2">{formatDate(c.expiresAt)}</td>
            </tr>
          )}
        </Table>
        <KeysetPager
          className="mt-4 flex justify-between"
          filters={filters}
          after={search.after}
          next={page.next}
          firstLabel="← First codes"
          nextLabel="Next codes →"
        />
      </Card>
    </div>
  );
}
