import "server-only";
import type { RawQueries } from "@/lib/db/types";
import { customerJoins, customerJson } from "./sql";

/** The Customer of spec §2.1 as JSON text, read in one statement: by e-mail for the API, by id after a write. */

export const GET_CUSTOMER_SQL = `SELECT ${customerJson}::text AS body FROM "Customer" c ${customerJoins}
  WHERE c."programId" = $1::uuid AND c.email = $2 AND c."deletedAt" IS NULL`;

/** The Customer of spec §2.1 as JSON text, or null. `email` must already be normalised (trimmed, lower case). */
export async function getCustomerJson(db: RawQueries, programId: string, email: string): Promise<string | null> {
  if (email.includes("\u0000")) return null; // cannot be stored, so no customer has it (and PostgreSQL would reject it)
  const rows = await db.$queryRawUnsafe<{ body: string }[]>(GET_CUSTOMER_SQL, programId, email);
  return rows[0]?.body ?? null;
}

const GET_CUSTOMER_BY_ID_SQL = `SELECT ${customerJson}::text AS body FROM "Customer" c ${customerJoins}
  WHERE c."programId" = $1::uuid AND c.id = $2::uuid AND c."deletedAt" IS NULL`;

export async function getCustomerJsonById(
  db: RawQueries,
  programId: string,
  customerId: string,
): Promise<string | null> {
  const rows = await db.$queryRawUnsafe<{ body: string }[]>(GET_CUSTOMER_BY_ID_SQL, programId, customerId);
  return rows[0]?.body ?? null;
}
