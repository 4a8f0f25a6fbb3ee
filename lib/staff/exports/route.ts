import "server-only";
import { db } from "@/lib/db/client";
import { retryRead } from "@/lib/db/outage";
import { parseWith, urlInputs, withEdge, type SchemaLike } from "@/lib/api/edge";
import { crossSiteRequest, notFound } from "@/lib/errors";
import { csvFileName } from "@/lib/exports/csv-options";
import { EXPORT_FILTERS, EXPORT_KINDS, EXPORT_ROWS_HEADER, type ExportKind } from "@/lib/exports/kinds";
import { exportSource } from "@/lib/exports/sources";
import { csvByteStream, type ExportOutcome } from "@/lib/exports/stream";
import { audited } from "../audit";
import { type StaffContext } from "../authz";
import { requireStaff } from "../session";
import { EXPORT_PERMISSIONS } from "./permissions";

/**
 * The dashboard's CSV exports (GET /api/staff/{programId}/exports/{kind}?filters): the role check, the filter
 * validated with the kind's zod schema (lib/exports/kinds.ts), the rows counted up front (the `x-export-rows`
 * header, for the browser's progress bar), then the rows streamed as an attachment in keyset batches
 * (lib/exports/stream.ts). Each export is audited when it ends — who, which kind, which filter, how many rows,
 * whether the client took all of them — so a cancelled download is on record too.
 */

/** Records the export in the audit log: the kind, the filter and the outcome, never the rows. */
async function auditExport(staff: StaffContext, kind: ExportKind, filter: unknown, outcome: ExportOutcome) {
  const database = await db();
  await database.$transaction((tx) =>
    audited(tx, staff, "data.export", { type: "export", id: kind }, undefined, { kind, filter, ...outcome }),
  );
}

type Ctx = { params: Promise<Record<string, string>> };

/**
 * An export is started only by the dashboard itself (its fetch sends Sec-Fetch-Site: same-origin) or by the staff
 * member typing or bookmarking the URL (`none`): a link or image on another site (`cross-site`, `same-site`) is
 * refused (403 `cross_site_request`) before anything is read, so it cannot make a signed-in browser download a CSV.
 * A client that sends no Fetch Metadata (curl, a script with the session cookie) carries no victim's session.
 */
export function requireExportStartedHere(req: Request): void {
  const site = req.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") throw crossSiteRequest();
}

export async function exportRoute(req: Request, ctx: Ctx): Promise<Response> {
  return withEdge(req, async (edge) => {
    requireExportStartedHere(req);
    const params = await urlInputs(req, ctx);
    const kind = EXPORT_KINDS.find((k) => k === params.kind);
    if (!kind) throw notFound("export");
    const staff = await retryRead(() => requireStaff(params.programId ?? "", EXPORT_PERMISSIONS[kind]));
    const query = Object.fromEntries(new URL(req.url).searchParams);
    const filter: unknown = parseWith(EXPORT_FILTERS[kind] as SchemaLike<unknown>)(query);
    const database = await db();
    const source = await retryRead(() => exportSource(database, staff.programId, kind, filter as never));
    const rows = await retryRead(() => source.count());
    const body = csvByteStream(source, (outcome) => auditExport(staff, kind, filter, outcome));
    const headers = new Headers(edge.headers);
    headers.set("content-type", "text/csv; charset=utf-8");
    headers.set("content-disposition", `attachment; filename="${csvFileName(kind)}"`);
    headers.set(EXPORT_ROWS_HEADER, String(rows));
    headers.set("x-content-type-options", "nosniff");
    return new Response(body, { status: 200, headers });
  });
}
