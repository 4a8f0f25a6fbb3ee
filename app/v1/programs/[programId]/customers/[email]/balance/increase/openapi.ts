import { balanceMove, BALANCE_LIMIT } from "@/lib/api/openapi/customer-operations";

/** The OpenAPI operation of ./route.ts, by the method it exports (collected by lib/api/openapi/paths.ts). */
export const POST = balanceMove(
  "increaseBalance",
  "Increase balance",
  "Adds points as an `earn` ledger entry; earned points count towards tiers. Name the `orderId` the points were earned with to let a later refund of that order reverse them.",
  "PointsIncrease",
  BALANCE_LIMIT,
);
