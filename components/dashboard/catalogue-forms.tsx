"use client";

import { useRouter } from "next/navigation";
import { useId, useRef, useState } from "react";
import { toast } from "sonner";
import { StaffApiError, staffFetch, useStaffWrite } from "@/lib/staff/client";
import {
  CouponPoolForm as CouponPoolSchema,
  EarningFlowForm as EarningFlowSchema,
  MAX_CODES_PER_CHUNK,
  RewardForm as RewardSchema,
  RewardUpdate as RewardUpdateSchema,
  parseCouponCsv,
} from "@/lib/staff/forms";
import { MAX_FLOW_PARAMS } from "@/lib/domain/flow-params";
import { Badge, Card, Field, buttonClass, formatNumber, inputClass, secondaryButtonClass, TableScroll } from "@/components/ui";

/** "" → null, else the number typed (NaN for junk, which the schema reports). */
const optionalNumber = (value: FormDataEntryValue | null) => {
  const text = String(value ?? "").trim();
  return text === "" ? null : Number(text);
};
const optionalText = (value: FormDataEntryValue | null) => String(value ?? "").trim() || null;

/** A number input sized for a table cell (the form inputs fill their field). */
const cellInputClass = `${inputClass.replace("w-full", "w-28")} ml-auto text-right tabular-nums`;
const checkboxClass = "h-4 w-4 rounded border-slate-400 text-indigo-600 focus:ring-indigo-300";

export function RewardForm({ programId }: { programId: string }) {
  const formRef = useRef<HTMLFormElement>(null);
  const create = useStaffWrite({
    schema: RewardSchema,
    method: "POST",
    url: `/api/staff/${programId}/rewards`,
    success: "Reward created",
    onSuccess: () => formRef.current?.reset(),
  });
  const errors = create.errors;
  return (
    <Card title="New reward">
      <form
        ref={formRef}
        aria-label="New reward"
        noValidate
        className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          create.submit({
            name: String(f.get("name") ?? ""),
            description: optionalText(f.get("description")),
            image: optionalText(f.get("image")),
            costPoints: Number(f.get("costPoints")),
            stock: optionalNumber(f.get("stock")),
          });
        }}
      >
        <Field label="Name" htmlFor="reward-name" error={errors.name}>
          <input id="reward-name" name="name" required className={inputClass} placeholder="Free coffee" />
        </Field>
        <Field label="Cost in points" htmlFor="reward-cost" error={errors.costPoints}>
          <input id="reward-cost" name="costPoints" type="number" inputMode="numeric" min={1} step={1} required className={inputClass} />
        </Field>
        <Field label="Stock" htmlFor="reward-stock" error={errors.stock} hint="Leave empty for unlimited">
          <input id="reward-stock" name="stock" type="number" inputMode="numeric" min={0} step={1} className={inputClass} />
        </Field>
        <Field label="Image URL" htmlFor="reward-image" error={errors.image}>
          <input id="reward-image" name="image" type="url" className={inputClass} placeholder="https://…" />
        </Field>
        <div className="sm:col-span-2 lg:col-span-4">
          <Field label="Description" htmlFor="reward-description" error={errors.description}>
            <input id="reward-description" name="description" className={inputClass} placeholder="What the customer gets" />
          </Field>
        </div>
        <div>
          <button className={buttonClass} type="submit" disabled={create.pending}>
            Create reward
          </button>
        </div>
      </form>
    </Card>
  );
}

export interface RewardRowData {
  id: string;
  name: string;
  description: string | null;
  costPoints: number;
  stock: number | null;
  active: boolean;
  redemptions: number;
}

/** The rewards table; managers edit cost and stock in place and switch a reward on or off. */
export function RewardsTable({ programId, rewards, canManage }: { programId: string; rewards: RewardRowData[]; canManage: boolean }) {
  return (
    <TableScroll>
      <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Rewards">
        <thead className="whitespace-nowrap bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-700">
          <tr>
            <th scope="col" className="px-4 py-2">Reward</th>
            <th scope="col" className="px-4 py-2 text-right">Cost (points)</th>
            <th scope="col" className="px-4 py-2 text-right">Stock</th>
            <th scope="col" className="px-4 py-2">Status</th>
            <th scope="col" className="px-4 py-2 text-right">Redemptions</th>
            {canManage && (
              <th scope="col" className="px-4 py-2">
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rewards.map((r) => (canManage ? <EditableRewardRow key={`${r.id}:${r.costPoints}:${r.stock}:${r.active}`} programId={programId} reward={r} /> : <RewardRowView key={r.id} reward={r} />))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function RewardName({ reward }: { reward: RewardRowData }) {
  return (
    <td className="px-4 py-2">
      <p className="font-medium">{reward.name}</p>
      {reward.description && <p className="max-w-xs truncate text-xs text-slate-600">{reward.description}</p>}
    </td>
  );
}

const statusBadge = (active: boolean) => (active ? <Badge tone="green">active</Badge> : <Badge>inactive</Badge>);

function RewardRowView({ reward }: { reward: RewardRowData }) {
  return (
    <tr>
      <RewardName reward={reward} />
      <td className="px-4 py-2 text-right tabular-nums">{formatNumber(reward.costPoints)}</td>
      <td className="px-4 py-2 text-right tabular-nums">{reward.stock === null ? "unlimited" : formatNumber(reward.stock)}</td>
      <td className="px-4 py-2">{statusBadge(reward.active)}</td>
      <td className="px-4 py-2 text-right tabular-nums">{formatNumber(reward.redemptions)}</td>
    </tr>
  );
}

function EditableRewardRow({ programId, reward }: { programId: string; reward: RewardRowData }) {
  const formId = useId();
  const url = `/api/staff/${programId}/rewards/${reward.id}`;
  const save = useStaffWrite({ schema: RewardUpdateSchema, method: "PATCH", url, success: `"${reward.name}" saved` });
  const toggle = useStaffWrite({ schema: RewardUpdateSchema, method: "PATCH", url, success: `"${reward.name}" ${reward.active ? "deactivated" : "activated"}` });
  const errors = { ...toggle.errors, ...save.errors };
  return (
    <tr className="align-top" data-testid={`reward-${reward.id}`}>
      <RewardName reward={reward} />
      <td className="px-4 py-2 text-right">
        <input
          form={formId}
          name="costPoints"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          defaultValue={reward.costPoints}
          aria-label={`Cost of ${reward.name} in points`}
          className={cellInputClass}
        />
        {errors.costPoints && (
          <p className="mt-1 text-xs font-medium text-red-700" role="alert">
            {errors.costPoints}
          </p>
        )}
      </td>
      <td className="px-4 py-2 text-right">
        <input
          form={formId}
          name="stock"
          type="number"
          inputMode="numeric"
          min={0}
          step={1}
          defaultValue={reward.stock ?? ""}
          placeholder="unlimited"
          aria-label={`Stock of ${reward.name} (empty for unlimited)`}
          className={cellInputClass}
        />
        {errors.stock && (
          <p className="mt-1 text-xs font-medium text-red-700" role="alert">
            {errors.stock}
          </p>
        )}
      </td>
      <td className="px-4 py-2 pt-4">{statusBadge(reward.active)}</td>
      <td className="px-4 py-2 pt-4 text-right tabular-nums">{formatNumber(reward.redemptions)}</td>
      <td className="px-4 py-2">
        <form
          id={formId}
          aria-label={`Edit ${reward.name}`}
          noValidate
          className="flex justify-end gap-2 whitespace-nowrap"
          onSubmit={(e) => {
            e.preventDefault();
            const f = new FormData(e.currentTarget);
            save.submit({ costPoints: Number(f.get("costPoints")), stock: optionalNumber(f.get("stock")) });
          }}
        >
          <button type="submit" className={secondaryButtonClass} disabled={save.pending}>
            Save<span className="sr-only"> {reward.name}</span>
          </button>
          <button type="button" className={`${secondaryButtonClass} min-w-28`} disabled={toggle.pending} onClick={() => toggle.submit({ active: !reward.active })}>
            {reward.active ? "Deactivate" : "Activate"}
            <span className="sr-only"> {reward.name}</span>
          </button>
        </form>
      </td>
    </tr>
  );
}

export function CouponPoolForm({ programId }: { programId: string }) {
  const formRef = useRef<HTMLFormElement>(null);
  const create = useStaffWrite({
    schema: CouponPoolSchema,
    method: "POST",
    url: `/api/staff/${programId}/coupon-pools`,
    success: "Coupon pool created",
    onSuccess: () => formRef.current?.reset(),
  });
  const errors = create.errors;
  return (
    <Card title="New coupon pool">
      <form
        ref={formRef}
        aria-label="New coupon pool"
        noValidate
        className="flex flex-wrap items-start gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          create.submit({ name: String(f.get("name") ?? ""), validDays: optionalNumber(f.get("validDays")) });
        }}
      >
        <div className="min-w-56 flex-1">
          <Field label="Name" htmlFor="pool-name" error={errors.name}>
            <input id="pool-name" name="name" required className={inputClass} placeholder="Summer 10% off" />
          </Field>
        </div>
        <div className="w-44">
          <Field label="Valid for (days)" htmlFor="pool-valid-days" error={errors.validDays} hint="Empty: no expiry">
            <input id="pool-valid-days" name="validDays" type="number" inputMode="numeric" min={1} max={3650} step={1} className={inputClass} />
          </Field>
        </div>
        <button className={`${buttonClass} sm:mt-6`} type="submit" disabled={create.pending}>
          Create pool
        </button>
      </form>
    </Card>
  );
}

/**
 * Imports a CSV of codes (one per line, an optional `code` header) into a pool: parsed in the browser, checked
 * with the server's rules, then sent in chunks of MAX_CODES_PER_CHUNK, each all-or-nothing, with a progress bar.
 * Codes already in the pool are skipped, so a file can be sent again after an interruption.
 */
export function CouponImport({ programId, pools }: { programId: string; pools: { id: string; name: string }[] }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number; imported: number; skipped: number; finished: boolean } | null>(null);
  const running = progress !== null && !progress.finished;

  async function run(form: HTMLFormElement) {
    setError(null);
    const f = new FormData(form);
    const poolId = String(f.get("poolId") ?? "");
    const file = f.get("file");
    if (!(file instanceof File) || file.size === 0) return setError("choose a CSV file with one code per line");
    const parsed = parseCouponCsv(await file.text());
    if ("line" in parsed) return setError(`Line ${parsed.line}: ${parsed.message}. Nothing was imported.`);
    const { codes } = parsed;
    if (codes.length === 0) return setError("the file holds no codes");
    const state = { done: 0, total: codes.length, imported: 0, skipped: 0, finished: false };
    setProgress({ ...state });
    try {
      for (let i = 0; i < codes.length; i += MAX_CODES_PER_CHUNK) {
        const chunk = codes.slice(i, i + MAX_CODES_PER_CHUNK);
        const result = await staffFetch<{ imported: number; skipped: number }>("POST", `/api/staff/${programId}/coupon-pools/${poolId}/codes`, { codes: chunk });
        state.done += chunk.length;
        state.imported += result.imported;
        state.skipped += result.skipped;
        setProgress({ ...state });
      }
      toast.success(`Imported ${formatNumber(state.imported)} codes; skipped ${formatNumber(state.skipped)} duplicates`);
      form.reset();
    } catch (err) {
      const detail = err instanceof StaffApiError ? Object.values(err.fields)[0] ?? err.message : (err as Error).message;
      const message = `Stopped after ${formatNumber(state.done)} of ${formatNumber(state.total)} codes: ${detail}. Sending the file again skips the codes already imported.`;
      setError(message);
      toast.error(message);
    } finally {
      setProgress({ ...state, finished: true });
      router.refresh();
    }
  }

  return (
    <Card title="Import codes from a CSV file">
      <form
        aria-label="Import coupon codes"
        noValidate
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void run(e.currentTarget);
        }}
      >
        <div className="min-w-48 flex-1">
          <Field label="Pool" htmlFor="import-pool">
            <select id="import-pool" name="poolId" className={inputClass} disabled={running}>
              {pools.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <div className="min-w-56 flex-[2]">
          <Field label="CSV file (one code per line)" htmlFor="import-file">
            <input
              id="import-file"
              name="file"
              type="file"
              accept=".csv,.txt,text/csv,text/plain"
              required
              disabled={running}
              className="block w-full text-sm text-slate-800 file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-2 file:text-sm file:font-medium file:text-slate-800 hover:file:bg-slate-50"
            />
          </Field>
        </div>
        <button type="submit" className={buttonClass} disabled={running}>
          {running ? "Importing…" : "Import"}
        </button>
      </form>
      {error && (
        <p className="mt-3 text-sm font-medium text-red-700" role="alert">
          {error}
        </p>
      )}
      {progress && (
        <div className="mt-4 space-y-1" role="status">
          <progress
            className="h-3 w-full overflow-hidden rounded-full bg-slate-200 [&::-moz-progress-bar]:bg-indigo-600 [&::-webkit-progress-bar]:bg-slate-200 [&::-webkit-progress-value]:bg-indigo-600 [&::-webkit-progress-value]:transition-all" value={progress.done} max={progress.total} aria-label="Codes imported">
            {progress.done} of {progress.total}
          </progress>
          <p className="text-sm tabular-nums text-slate-700" data-testid="import-progress">
            {formatNumber(progress.done)} / {formatNumber(progress.total)} codes sent
            {progress.done > 0 && ` · ${formatNumber(progress.imported)} imported, ${formatNumber(progress.skipped)} duplicates skipped`}
            {progress.finished && progress.done === progress.total && " · done"}
          </p>
        </div>
      )}
    </Card>
  );
}

export function EarningFlowForm({ programId }: { programId: string }) {
  const formRef = useRef<HTMLFormElement>(null);
  const [mode, setMode] = useState<"fixed" | "perUnit">("fixed");
  // One stable key per declared parameter row, so removing a row keeps the values typed in the others.
  const [paramRows, setParamRows] = useState<number[]>([]);
  const nextRow = useRef(0);
  const create = useStaffWrite({
    schema: EarningFlowSchema,
    method: "POST",
    url: `/api/staff/${programId}/earning-flows`,
    success: "Earning flow created",
    onSuccess: () => {
      formRef.current?.reset();
      setMode("fixed");
      setParamRows([]);
    },
  });
  const errors = create.errors;
  return (
    <Card title="New earning flow">
      <form
        ref={formRef}
        aria-label="New earning flow"
        noValidate
        className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const fixed = mode === "fixed";
          create.submit({
            key: String(f.get("key") ?? ""),
            name: optionalText(f.get("name")),
            points: fixed ? optionalNumber(f.get("points")) : null,
            pointsPerUnit: fixed ? null : optionalNumber(f.get("pointsPerUnit")),
            param: fixed ? null : optionalText(f.get("param")),
            params: paramRows.map((row) => ({
              name: String(f.get(`param-${row}-name`) ?? "").trim(),
              min: optionalNumber(f.get(`param-${row}-min`)),
              max: optionalNumber(f.get(`param-${row}-max`)),
              required: f.get(`param-${row}-required`) === "on",
            })),
            capPerDay: optionalNumber(f.get("capPerDay")),
            capTotal: optionalNumber(f.get("capTotal")),
            once: f.get("once") === "on",
          });
        }}
      >
        <Field label="Key" htmlFor="flow-key" error={errors.key} hint="Used by the API, e.g. purchase">
          <input id="flow-key" name="key" required className={`${inputClass} font-mono`} placeholder="purchase" autoCapitalize="none" spellCheck={false} />
        </Field>
        <Field label="Name" htmlFor="flow-name" error={errors.name}>
          <input id="flow-name" name="name" className={inputClass} placeholder="Purchase in store" />
        </Field>
        <fieldset className="sm:col-span-2">
          <legend className="block text-sm font-medium text-slate-800">Points earned</legend>
          <div className="mt-2 flex flex-wrap gap-4 text-sm">
            <label className="flex items-center gap-2">
              <input type="radio" name="mode" value="fixed" checked={mode === "fixed"} onChange={() => setMode("fixed")} className={checkboxClass} />
              Fixed points per run
            </label>
            <label className="flex items-center gap-2">
              <input type="radio" name="mode" value="perUnit" checked={mode === "perUnit"} onChange={() => setMode("perUnit")} className={checkboxClass} />
              Points per unit of a param
            </label>
          </div>
        </fieldset>
        {mode === "fixed" ? (
          <Field label="Points" htmlFor="flow-points" error={errors.points}>
            <input id="flow-points" name="points" type="number" inputMode="numeric" min={1} step={1} className={inputClass} />
          </Field>
        ) : (
          <>
            <Field label="Points per unit" htmlFor="flow-per-unit" error={errors.pointsPerUnit ?? errors.points}>
              <input id="flow-per-unit" name="pointsPerUnit" type="number" inputMode="decimal" min={0} step="any" className={inputClass} placeholder="0.1" />
            </Field>
            <Field label="Param" htmlFor="flow-param" error={errors.param} hint="A numeric param of the run, e.g. amount">
              <input id="flow-param" name="param" className={`${inputClass} font-mono`} placeholder="amount" autoCapitalize="none" spellCheck={false} />
            </Field>
          </>
        )}
        <fieldset className="space-y-3 sm:col-span-2 lg:col-span-4">
          <legend className="block text-sm font-medium text-slate-800">Parameters a run may send</legend>
          <p className="text-xs text-slate-600">
            Numbers only. A run that sends anything else is refused, and only these values are kept with its points. Empty bounds mean 0 to
            1,000,000,000; a per-unit param not listed here is added as required.
          </p>
          {errors.params && (
            <p className="text-xs font-medium text-red-700" role="alert">
              {errors.params}
            </p>
          )}
          {paramRows.map((row, i) => (
            <div key={row} role="group" aria-label={`Parameter ${i + 1}`} className="grid items-end gap-3 sm:grid-cols-2 lg:grid-cols-5">
              <Field label={`Parameter ${i + 1} name`} htmlFor={`flow-param-${row}-name`} error={errors[`params[${i}].name`]}>
                <input id={`flow-param-${row}-name`} name={`param-${row}-name`} className={`${inputClass} font-mono`} placeholder="amount" autoCapitalize="none" spellCheck={false} />
              </Field>
              <Field label="Minimum" htmlFor={`flow-param-${row}-min`} error={errors[`params[${i}].min`]}>
                <input id={`flow-param-${row}-min`} name={`param-${row}-min`} type="number" inputMode="decimal" min={0} step="any" className={inputClass} placeholder="0" />
              </Field>
              <Field label="Maximum" htmlFor={`flow-param-${row}-max`} error={errors[`params[${i}].max`]}>
                <input id={`flow-param-${row}-max`} name={`param-${row}-max`} type="number" inputMode="decimal" min={0} step="any" className={inputClass} placeholder="1000000000" />
              </Field>
              <div className="space-y-1">
                <div className="flex items-center gap-2 text-sm">
                  <input id={`flow-param-${row}-required`} name={`param-${row}-required`} type="checkbox" defaultChecked className={checkboxClass} />
                  <label htmlFor={`flow-param-${row}-required`} className="font-medium text-slate-800">
                    Required
                  </label>
                </div>
                {errors[`params[${i}].required`] && (
                  <p className="text-xs font-medium text-red-700" role="alert">
                    {errors[`params[${i}].required`]}
                  </p>
                )}
              </div>
              <button type="button" className={secondaryButtonClass} onClick={() => setParamRows((rows) => rows.filter((r) => r !== row))}>
                Remove parameter {i + 1}
              </button>
            </div>
          ))}
          <button
            type="button"
            className={secondaryButtonClass}
            disabled={paramRows.length >= MAX_FLOW_PARAMS}
            onClick={() => setParamRows((rows) => [...rows, nextRow.current++])}
          >
            Add parameter
          </button>
        </fieldset>
        <Field label="Cap per day" htmlFor="flow-cap-day" error={errors.capPerDay} hint="Points per customer per UTC day">
          <input id="flow-cap-day" name="capPerDay" type="number" inputMode="numeric" min={1} step={1} className={inputClass} />
        </Field>
        <Field label="Cap in total" htmlFor="flow-cap-total" error={errors.capTotal} hint="Points per customer, ever">
          <input id="flow-cap-total" name="capTotal" type="number" inputMode="numeric" min={1} step={1} className={inputClass} />
        </Field>
        <div className="flex items-center gap-2 self-center text-sm sm:col-span-2 lg:col-span-1">
          <input id="flow-once" name="once" type="checkbox" className={checkboxClass} />
          <label htmlFor="flow-once" className="font-medium text-slate-800">
            Once per customer
          </label>
        </div>
        <div className="sm:col-span-2 lg:col-span-4">
          <button className={buttonClass} type="submit" disabled={create.pending}>
            Create earning flow
          </button>
        </div>
      </form>
    </Card>
  );
}
