import "server-only";
import type { Db, RawQueries } from "@/lib/db/types";
import { findRow } from "@/lib/db/require-row";
import { customerNotFound } from "@/lib/errors";

/**
 * The one place that says which customer an id names: a live (not deleted) customer of this program. A malformed
 * id, another program's customer and a deleted one are all "not found", so a caller learns nothing about ids
 * outside its program. A deleted customer's e-mail is erased, so a live one always has one.
 */
export function findCustomer(
  db: Db,
  programId: string,
  customerId: string,
): Promise<{ id: string; email: string } | null> {
  return findRow(customerId, async (id) => {
    const customer = await db.customer.findFirst({
      where: { id, programId, deletedAt: null },
      select: { id: true, email: true },
    });
    return customer?.email ? { id: customer.id, email: customer.email } : null;
  });
}

/** `findCustomer`, or 404 `customer_not_found`. */
export async function requireCustomer(
  db: Db,
  programId: string,
  customerId: string,
): Promise<{ id: string; email: string }> {
  const customer = await findCustomer(db, programId, customerId);
  if (!customer) throw customerNotFound();
  return customer;
}

/** Whether an e-mail can name a customer at all: PostgreSQL text cannot hold NUL (a query with one fails: a 500). */
export const canNameCustomer = (email: string) => !email.includes("\u0000");

/** The live customer's id for an e-mail (already normalised), or 404 `customer_not_found`. */
export async function resolveCustomerId(db: RawQueries, programId: string, email: string): Promise<string> {
  if (!canNameCustomer(email)) throw customerNotFound();
  // Raw, not the model API: this runs before every write on a customer's e-mail, and Prisma's work for a model query
  // costs more than the lookup (bench/profile.ts); on the /v1 hot paths it goes straight to the pool (lib/db/client.ts `poolQueries`).
  const [customer] = await db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id::text AS id FROM "Customer" WHERE "programId" = $1::uuid AND email = $2 AND "deletedAt" IS NULL`,
    programId,
    email,
  );
  if (!customer) throw customerNotFound();
  return customer.id;
}
