/**
 * The PostgreSQL extensions the schema uses, for every PGlite that opens our database (the app's adapter, the
 * migration tool, the tests' databases). PGlite links an extension only when it is passed at construction, and
 * a database whose indexes use one (pg_trgm: the dashboard search's GIN indexes) cannot be written without it.
 * Not server-only: the migration tool and the tests import it too.
 */
export async function pgliteExtensions() {
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  return { pg_trgm };
}
