import { apiWrite } from "@/lib/api/handler";
import { parseIntegrationBatch } from "@/lib/api/integration-batch";
import { applyUserBatch } from "@/lib/domain/customers";

/** Create/Update resources (spec §4.2): 201 with no body. */
export const POST = apiWrite({
  body: parseIntegrationBatch,
  run: async (req, tx) => {
    await applyUserBatch(tx, req.programId, req.body);
    return { status: 201 };
  },
});
