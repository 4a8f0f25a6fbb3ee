import { apiRead, apiWrite, type PathParam } from "@/lib/api/route-factories";
import { CustomerAttributeDeclaration, CustomerAttributeName } from "@/lib/api/schemas/segments";
import { programNow } from "@/lib/domain/clock";
import { getCustomerAttribute, putCustomerAttribute } from "@/lib/domain/customer-attributes";
import { validationFailed } from "@/lib/errors";

const params: Record<string, PathParam> = {
  name: {
    schema: CustomerAttributeName,
    orElse: () => validationFailed([{ path: "name", message: "must be a name of letters, digits and _ (at most 64)" }]),
  },
};

/** One declared customer attribute. 200. */
export const GET = apiRead({
  params,
  run: async (req, db) => ({
    status: 200,
    json: await getCustomerAttribute(db.prisma, req.programId, req.params.name!),
  }),
});

/** Declares a customer attribute, or changes its type. 200. */
export const PUT = apiWrite({
  params,
  body: CustomerAttributeDeclaration,
  run: async (req, tx) => ({
    status: 200,
    json: await putCustomerAttribute(tx, {
      programId: req.programId,
      name: req.params.name!,
      type: req.body.type,
      now: programNow(req.programId),
    }),
  }),
});
