/**
 * The loyalty program's typed /v1 client (docs/integrating.md "The typed client"). Its types are generated from the
 * OpenAPI document by `npm run sdk:generate` (scripts/generate-sdk-types.ts); everything else is in ./client.ts,
 * ./errors.ts, ./retry.ts; verifying webhook deliveries in ./webhooks.ts. Packed as an npm package by `npm pack` here
 * (sdk/package.json, sdk/README.md).
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
} from "./client.js";
export {
  isLoyaltyApiError,
  LoyaltyApiError,
  UNEXPECTED_RESPONSE,
  type ErrorCode,
  type FieldProblem,
  type LoyaltyErrorCode,
  type OperationErrorCodes,
  type OperationId,
} from "./errors.js";
export { parseRetryAfter, retryDelayMs, type RetryOptions } from "./retry.js";
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookEvent,
} from "./webhooks.js";
export type { components, operations, paths } from "./generated/openapi.js";
