import "server-only";
import type { Db } from "@/lib/db/types";
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
