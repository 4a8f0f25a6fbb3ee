import "server-only";
import { db } from "@/lib/db/client";
import { realTime } from "@/lib/domain/real-time";
import { type Permission } from "./authz";
import { resolveRange } from "./report-range";
import { requirePage } from "./session";
import { firstParams } from "./search-params";

/** What Next passes a program's dashboard page that reads its query string (filters, keyset cursors). */
export interface ProgramSearchPageProps<K extends string> {
  params: Promise<{ programId: string }>;
  searchParams: Promise<Partial<Record<K, string | string[]>>>;
}

/**
 * The one preamble of a program page with a query string: the staff member allowed to see it (`requirePage`
 * redirects or answers 404 otherwise, before anything is read), the query as plain strings, and the database.
 */
export async function openProgramSearchPage<K extends string>(
  props: ProgramSearchPageProps<K>,
  permission: Permission,
) {
  const { programId } = await props.params;
  const staff = await requirePage(programId, permission);
  const search = await firstParams(props.searchParams);
  return { programId, staff, search, database: await db() };
}

/**
 * The one preamble of a report page (the Overview, Finance): `openProgramSearchPage`, the program's time zone, its
 * business time `now` (lib/domain/clock.ts: a test program's clock, real time for a live program) and the period its
 * query asks for (report-range.ts `resolveRange`: the same presets, bounds and refusals), counted up to today on that
 * clock: a report's days, and what it says "as of now" (points expiring soon), follow the program clock.
 */
export async function openReportPage(props: ProgramSearchPageProps<"range" | "from" | "to">, permission: Permission) {
  const page = await openProgramSearchPage(props, permission);
  const { timeZone } = await page.database.program.findUniqueOrThrow({
    where: { id: page.programId },
    select: { timeZone: true },
  });
  const now = page.staff.programClockAt ?? realTime();
  return { ...page, timeZone, now, range: resolveRange(page.search, timeZone, now) };
}
