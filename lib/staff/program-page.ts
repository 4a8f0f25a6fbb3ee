import "server-only";
import { db } from "@/lib/db/client";
import { type Permission } from "./authz";
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
