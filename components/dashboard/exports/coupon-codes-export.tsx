"use client";

import { useState } from "react";
import { Card, inputClass } from "@/components/ui";
import { ExportButton } from "./export-button";

/** A pool picker and the export of its codes (free, assigned or expired, with the customer's e-mail). */
export function CouponCodesExport({ programId, pools }: { programId: string; pools: { id: string; name: string }[] }) {
  const [pool, setPool] = useState(pools[0]?.id ?? "");
  return (
    <Card title="Export a pool's codes">
      <div className="flex flex-wrap items-end gap-3">
        <div>
          <label htmlFor="export-pool" className="block text-sm font-medium text-slate-800">
            Pool
          </label>
          <select id="export-pool" value={pool} onChange={(e) => setPool(e.target.value)} className={inputClass}>
            {pools.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        <ExportButton programId={programId} kind="coupon-codes" filter={{ pool }} label="Export codes" />
      </div>
    </Card>
  );
}
