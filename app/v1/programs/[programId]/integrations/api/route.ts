import { apiWrite } from "@/lib/api/route-factories";
import { parseDeleteBatch, parseIntegrationBatch } from "@/lib/api/batch";
import { applyIntegrationBatchInOneStatement } from "@/lib/api/one-statement";
import { applyIntegrationBatch } from "@/lib/domain/customers";
import { deleteCustomers } from "@/lib/domain/deletion";

/**
 * Create/Update resources (spec §4.2): 201 with no body; a batch of user items without renames in one statement,
 * a batch with `loyalty` items (JeriCommerce migration: balances set through the ledger) in a transaction.
 */
export const POST = apiWrite({
  body: parseIntegrationBatch,
  statement: (req, database, slot) => applyIntegrationBatchInOneStatement(database, req.programId, req.body, slot),
  run: async (req, tx) => {
    await applyIntegrationBatch(tx, req.programId, req.body, {
      actor: req.caller.actor,
      idempotencyKey: req.idempotencyKey,
    });
    return { status: 201 };
  },
});

/** Delete resources: erases the customers' personal data; unknown e-mails are ignored. 204. */
export const DELETE = apiWrite({
  body: parseDeleteBatch,
  run: async (req, tx) => {
    await deleteCustomers(
      tx,
      req.programId,
      req.body.map((item) => item.email),
    );
    return { status: 204 };
  },
});
