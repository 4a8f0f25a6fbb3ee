/**
 * The loyalty program's typed /v1 client (docs/integrating.md "The typed client"). Its types are generated from the
 * OpenAPI document by `npm run sdk:generate` (scripts/generate-sdk-types.ts); everything else is in ./client.ts,
 * ./errors.ts, ./retry.ts.
 */
export {
  createCustomerClient,
  createLoyaltyClient,
  type BaseOptions,
  type CallMethod,
  type CustomerClient,
  type CustomerClientOptions,
  type CustomerPaths,
  type IntegratorPaths,
  type LoyaltyClient,
  type LoyaltyClientOptions,
  type Schemas,
  type Transaction,
} from "./client";
export {
  isLoyaltyApiError,
  LoyaltyApiError,
  UNEXPECTED_RESPONSE,
  type ErrorCode,
  type FieldProblem,
  type LoyaltyErrorCode,
  type OperationErrorCodes,
  type OperationId,
} from "./errors";
export { parseRetryAfter, retryDelayMs, type RetryOptions } from "./retry";
export type { components, operations, paths } from "./generated/openapi";
