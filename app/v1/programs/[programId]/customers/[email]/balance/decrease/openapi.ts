import { balanceMove } from "@/lib/api/openapi/customer-operations";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST = balanceMove(
  "decreaseBalance",
  "Decrease balance",
  "Takes points as a `spend` ledger entry, oldest points first. Never below zero.",
  "PointsChange",
  "insufficient_balance",
);
