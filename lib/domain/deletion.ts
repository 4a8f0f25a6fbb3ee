import "server-only";
import type { Tx } from "@/lib/db/types";
import { emitEvents } from "./events";
import { programNow } from "./clock";

/**
 * The one place that erases customers (right to erasure; docs/operating.md "Security and operations"): their personal
 * data and every free text sent for them, in one transaction, and makes them absent to every read. Their ledger,
 * redemptions and coupons stay, with amounts, types and timestamps, keyed by an id that no longer leads to a person, so
 * program totals stay true. Unknown or already deleted e-mails are ignored, so a retry is harmless.
 */

/** One statement for the whole ledger of the erased customers ($1: their ids as a JSON array). */
const ERASE_LEDGER_TEXT_SQL = `
UPDATE "LedgerEntry" e SET
  reason = CASE WHEN e.source IN ('earning_flow', 'system') THEN e.reason END,
  metadata = CASE
    WHEN e."earningFlowId" IS NOT NULL THEN (SELECT jsonb_build_object('flowKey', f.key) FROM "EarningFlow" f WHERE f.id = e."earningFlowId")
    WHEN e.type = 'redeem' THEN (SELECT jsonb_build_object('rewardId', r."rewardId") FROM "Redemption" r WHERE r."ledgerEntryId" = e.id)
    WHEN e.type = 'reversal' AND e.metadata->>'redemptionId' IS NOT NULL
      THEN jsonb_build_object('redemptionId', e.metadata->'redemptionId', 'reverses', e.metadata->'reverses')
  END,
  "idempotencyKey" = NULL
WHERE e."customerId" IN (SELECT (jsonb_array_elements_text($1::jsonb))::uuid)`;

/** Erases the program's customers with these e-mails; returns how many there were. */
export async function deleteCustomers(tx: Tx, programId: string, emails: string[]): Promise<{ deleted: number }> {
  const now = programNow(programId);
  const erased = await tx.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE "Customer" SET email = NULL, "deletedAt" = $3::timestamptz, "updatedAt" = $3::timestamptz,
       referral = NULL, "referralCode" = NULL, "utmCampaign" = NULL, "utmSource" = NULL, "utmMedium" = NULL, language = NULL,
       "customAttributes" = '{}'::jsonb
     WHERE "programId" = $1::uuid AND email = ANY(SELECT jsonb_array_elements_text($2::jsonb)) AND "deletedAt" IS NULL
     RETURNING id`,
    programId,
    JSON.stringify([...new Set(emails)]),
    now.toISOString(),
  );
  if (erased.length === 0) return { deleted: 0 };
  const ids = JSON.stringify(erased.map((c) => c.id));
  await tx.$executeRawUnsafe(
    `UPDATE "UserData" SET "externalCustomerId" = NULL, "firstName" = NULL, "lastName" = NULL, phone = NULL, birthdate = NULL, "updatedAt" = $2::timestamptz
     WHERE "customerId" IN (SELECT (jsonb_array_elements_text($1::jsonb))::uuid)`,
    ids,
    now.toISOString(),
  );
  // Staff's internal notes are about the person: they go with them.
  await tx.$executeRawUnsafe(
    `DELETE FROM "CustomerNote" WHERE "customerId" IN (SELECT (jsonb_array_elements_text($1::jsonb))::uuid)`,
    ids,
  );
  await tx.$executeRawUnsafe(
    `UPDATE "LoyaltyData" SET "referralLink" = NULL WHERE "programId" = $2::uuid AND "customerId" IN (SELECT (jsonb_array_elements_text($1::jsonb))::uuid)`,
    ids,
    programId,
  );
  // The ledger keeps what adds up (type, points, balances, times, source, actor) and the program's own words (a
  // flow's name, "points expired"), but not what an integrator or staff wrote for this person: reasons, metadata,
  // earning-flow params, idempotency keys. Metadata keeps only the flow key or the reward, read from our own rows, or
  // the redemption a cancel gave back and the entry it reversed (ids of ours).
  await tx.$executeRawUnsafe(ERASE_LEDGER_TEXT_SQL, ids);
  await tx.$executeRawUnsafe(
    `UPDATE "Redemption" SET metadata = NULL, "cancelReason" = NULL
     WHERE "customerId" IN (SELECT (jsonb_array_elements_text($1::jsonb))::uuid) AND (metadata IS NOT NULL OR "cancelReason" IS NOT NULL)`,
    ids,
  );
  // The event log keeps what happened and what the campaigns did (type, times, outcome), not what was sent about the
  // person: attributes (line items, addresses, anything), the order id and the idempotency key. A campaign entry's
  // provenance in its ledger metadata went with the other metadata above (an integrator's metadata may use the same
  // keys, so none can be told apart and kept).
  await tx.$executeRawUnsafe(
    `UPDATE "CustomerEvent" SET attributes = '{}'::jsonb, "orderId" = NULL, "idempotencyKey" = NULL
     WHERE "programId" = $2::uuid AND "customerId" IN (SELECT (jsonb_array_elements_text($1::jsonb))::uuid)`,
    ids,
    programId,
  );
  // Stored idempotent responses about them (balances, entries, metadata) go: a replayed key must not answer with
  // an erased person's data. A replay then runs afresh and finds no such customer.
  await tx.$executeRawUnsafe(
    `DELETE FROM "IdempotencyRecord" WHERE "programId" = $2::uuid AND "customerId" IN (SELECT (jsonb_array_elements_text($1::jsonb))::uuid)`,
    ids,
    programId,
  );
  // Undelivered pushes to an erased person are cancelled rather than sent blank.
  await tx.$executeRawUnsafe(
    `UPDATE "Delivery" SET status = 'cancelled' WHERE kind = 'push' AND status = 'pending'
       AND "notificationId" IN (SELECT id FROM "Notification" WHERE "customerId" IN (SELECT (jsonb_array_elements_text($1::jsonb))::uuid))`,
    ids,
  );
  await tx.$executeRawUnsafe(
    `UPDATE "Notification" SET title = '', body = '', data = NULL, status = CASE WHEN status = 'queued' THEN 'cancelled' ELSE status END
     WHERE "customerId" IN (SELECT (jsonb_array_elements_text($1::jsonb))::uuid)`,
    ids,
  );
  // Their e-mail also sits in the customer.created/updated events (kept for the delivery log): erase it there too,
  // so a delivery still pending or re-sent carries only the anonymous id.
  await tx.$executeRawUnsafe(
    `UPDATE "Event" SET data = data - 'email' - 'previousEmail'
     WHERE "programId" = $1::uuid AND type IN ('customer.created', 'customer.updated') AND (data ? 'email' OR data ? 'previousEmail')
       AND data->>'customerId' IN (SELECT jsonb_array_elements_text($2::jsonb))`,
    programId,
    ids,
  );
  // Staff audit entries about them keep who did what and when, but not the values they recorded (names,
  // phone, e-mail, message titles…): only which fields there were.
  await tx.$executeRawUnsafe(
    `UPDATE "AuditLog" SET
       before = CASE WHEN jsonb_typeof(before) = 'object' THEN jsonb_build_object('redacted', true, 'fields', (SELECT jsonb_agg(k) FROM jsonb_object_keys(before) k)) ELSE before END,
       after = CASE WHEN jsonb_typeof(after) = 'object' THEN jsonb_build_object('redacted', true, 'fields', (SELECT jsonb_agg(k) FROM jsonb_object_keys(after) k)) ELSE after END
     WHERE "programId" = $1::uuid AND "entityType" = 'customer' AND "entityId" IN (SELECT jsonb_array_elements_text($2::jsonb))`,
    programId,
    ids,
  );
  await emitEvents(
    tx,
    programId,
    erased.map((c) => ({ type: "customer.deleted" as const, data: { customerId: c.id } })),
    now,
  );
  return { deleted: erased.length };
}
