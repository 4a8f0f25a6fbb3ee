import { invalidCustomerToken, notFound } from "@/lib/errors";
import { verifyCustomerToken } from "@/lib/domain/customer-tokens";
import { applyRateLimit, readRoute, writeRoute, type ApiReply, type ApiRequest, type Authenticate, type WriteOptions } from "./handler";
import type { Db } from "@/lib/db/types";

/**
 * The /me routes: a customer token as `Authorization: Bearer`, never an api-key (and a customer token is
 * never accepted on integrator routes, which read only the api-key header).
 */
const byCustomerToken: Authenticate = async (req, params, edge, database) => {
  if (req.headers.get("api-key")) throw invalidCustomerToken();
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "");
  if (!match) throw invalidCustomerToken();
  // A UUID in any case names the same program; ids are stored lower-case.
  const programId = (params.programId ?? "").toLowerCase();
  if (!/^[0-9a-f-]{36}$/.test(programId)) throw notFound("program");
  const customerId = await verifyCustomerToken(database, programId, match[1]!);
  await applyRateLimit(edge, database, `customer:${customerId}`, 10, 30);
  return { caller: { actor: `customer:${customerId}`, scopeId: customerId, customerId }, programId };
};

export const meRead = (run: (req: ApiRequest<undefined>, database: Db) => Promise<ApiReply>) => readRoute(byCustomerToken, run);
export const meWrite = <B>(options: WriteOptions<B>) => writeRoute(byCustomerToken, options);
