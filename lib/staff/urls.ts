/**
 * The one place for the dashboard's addresses in the browser: the /api/staff URLs its components call (one per
 * route under app/api/staff), the dashboard pages they link to, and the React Query keys of what they read.
 * Client-safe: constants only, no server imports.
 */

const api = (programId: string) => `/api/staff/${programId}`;
const customerApi = (programId: string, customerId: string) => `${api(programId)}/customers/${customerId}`;
const query = (params: Record<string, string | null | undefined>) => {
  const kept = Object.entries(params).filter((e): e is [string, string] => !!e[1]);
  return kept.length === 0 ? "" : `?${new URLSearchParams(kept)}`;
};

export const staffApi = {
  rewards: (programId: string) => `${api(programId)}/rewards`,
  reward: (programId: string, rewardId: string) => `${api(programId)}/rewards/${rewardId}`,
  couponPools: (programId: string) => `${api(programId)}/coupon-pools`,
  couponCodes: (programId: string, poolId: string) => `${api(programId)}/coupon-pools/${poolId}/codes`,
  couponPool: (programId: string, poolId: string) => `${api(programId)}/coupon-pools/${poolId}`,
  earningFlows: (programId: string) => `${api(programId)}/earning-flows`,
  earningFlow: (programId: string, flowId: string) => `${api(programId)}/earning-flows/${flowId}`,
  earningFlowActive: (programId: string, flowId: string) => `${api(programId)}/earning-flows/${flowId}/active`,
  campaigns: (programId: string) => `${api(programId)}/campaigns`,
  campaign: (programId: string, campaignId: string) => `${api(programId)}/campaigns/${campaignId}`,
  campaignStatus: (programId: string, campaignId: string) => `${api(programId)}/campaigns/${campaignId}/status`,
  campaignTry: (programId: string, campaignId: string) => `${api(programId)}/campaigns/${campaignId}/try`,
  eventTypes: (programId: string) => `${api(programId)}/event-types`,
  segments: (programId: string) => `${api(programId)}/segments`,
  segment: (programId: string, segmentId: string) => `${api(programId)}/segments/${segmentId}`,
  segmentPreview: (programId: string) => `${api(programId)}/segments/preview`,
  tiers: (programId: string) => `${api(programId)}/tiers`,
  tier: (programId: string, tierId: string) => `${api(programId)}/tiers/${tierId}`,
  settings: (programId: string) => `${api(programId)}/settings`,
  referralSettings: (programId: string) => `${api(programId)}/settings/referrals`,
  pointValue: (programId: string) => `${api(programId)}/finance/point-value`,
  pointsPolicy: (programId: string) => `${api(programId)}/settings/points-policy`,
  programs: (programId: string) => `${api(programId)}/programs`,
  testCopy: (programId: string) => `${api(programId)}/programs/test-copy`,
  clock: (programId: string) => `${api(programId)}/clock`,
  clockPreview: (programId: string, to: string) => `${api(programId)}/clock/preview${query({ to })}`,
  clockAdvance: (programId: string) => `${api(programId)}/clock/advance`,
  campaignSimulation: (programId: string, campaignId: string) => `${api(programId)}/campaigns/${campaignId}/simulate`,
  apiKeys: (programId: string) => `${api(programId)}/api-keys`,
  apiKey: (programId: string, keyId: string) => `${api(programId)}/api-keys/${keyId}`,
  customerTokens: (programId: string) => `${api(programId)}/customer-tokens`,
  webhooks: (programId: string) => `${api(programId)}/webhooks`,
  webhook: (programId: string, webhookId: string) => `${api(programId)}/webhooks/${webhookId}`,
  webhookEvents: (programId: string, webhookId: string) => `${api(programId)}/webhooks/${webhookId}/events`,
  webhookSecret: (programId: string, webhookId: string) => `${api(programId)}/webhooks/${webhookId}/secret`,
  webhookTestEvent: (programId: string, webhookId: string) => `${api(programId)}/webhooks/${webhookId}/test-event`,
  pushEndpoint: (programId: string) => `${api(programId)}/push-endpoint`,
  resendDelivery: (programId: string, deliveryId: string) => `${api(programId)}/deliveries/${deliveryId}/resend`,
  staff: (programId: string) => `${api(programId)}/staff`,
  staffRole: (programId: string, staffId: string) => `${api(programId)}/staff/${staffId}/role`,
  staffDisabled: (programId: string, staffId: string) => `${api(programId)}/staff/${staffId}/disabled`,
  staffLock: (programId: string, staffId: string) => `${api(programId)}/staff/${staffId}/lock`,
  staffMember: (programId: string, staffId: string) => `${api(programId)}/staff/${staffId}`,
  staffResetLink: (programId: string, staffId: string) => `${api(programId)}/staff/${staffId}/reset-link`,
  staffInvites: (programId: string) => `${api(programId)}/staff/invites`,
  staffSecondFactor: (programId: string) => `${api(programId)}/staff/second-factor`,
  search: (programId: string, q: string) => `${api(programId)}/search${query({ q })}`,
  customer: customerApi,
  balance: (programId: string, customerId: string) => `${customerApi(programId, customerId)}/balance`,
  reverse: (programId: string, customerId: string, transactionId: string) =>
    `${customerApi(programId, customerId)}/transactions/${transactionId}/reverse`,
  redeem: (programId: string, customerId: string) => `${customerApi(programId, customerId)}/redeem`,
  coupons: (programId: string, customerId: string) => `${customerApi(programId, customerId)}/coupons`,
  notifications: (programId: string, customerId: string) => `${customerApi(programId, customerId)}/notifications`,
  cancelRedemption: (programId: string, redemptionId: string) => `${api(programId)}/redemptions/${redemptionId}/cancel`,
  /** A CSV export (lib/exports/kinds.ts) with its filter as the query string. */
  export: (programId: string, kind: string, filter: Record<string, string | null | undefined> = {}) =>
    `${api(programId)}/exports/${kind}${query(filter)}`,
  notes: (programId: string, customerId: string) => `${customerApi(programId, customerId)}/notes`,
  preferences: (programId: string, customerId: string) => `${customerApi(programId, customerId)}/preferences`,
  timeline: (programId: string, customerId: string, cursor: string | null, kind: string | null) =>
    `${customerApi(programId, customerId)}/timeline${query({ cursor, kind })}`,
  transactions: (programId: string, customerId: string, cursor: string | null) =>
    `${customerApi(programId, customerId)}/transactions${query({ cursor })}`,
};

export const dashboardPages = {
  program: (programId: string) => `/dashboard/${programId}`,
  reports: (programId: string, range: Record<string, string | null | undefined> = {}) =>
    `/dashboard/${programId}${query(range)}`,
  finance: (programId: string, range: Record<string, string | null | undefined> = {}) =>
    `/dashboard/${programId}/finance${query(range)}`,
  customers: (programId: string) => `/dashboard/${programId}/customers`,
  customer: (programId: string, customerId: string) => `/dashboard/${programId}/customers/${customerId}`,
  settings: (programId: string) => `/dashboard/${programId}/settings`,
  /** A test program's clock page; with an advance, that advance's timeline. */
  clock: (programId: string, advanceId?: string) => `/dashboard/${programId}/clock${query({ advance: advanceId })}`,
  campaigns: (programId: string) => `/dashboard/${programId}/campaigns`,
  campaign: (programId: string, campaignId: string) => `/dashboard/${programId}/campaigns/${campaignId}`,
  segments: (programId: string) => `/dashboard/${programId}/segments`,
  segment: (programId: string, segmentId: string) => `/dashboard/${programId}/segments/${segmentId}`,
  couponPool: (programId: string, poolId: string) => `/dashboard/${programId}/coupons/${poolId}`,
  webhooks: (programId: string) => `/dashboard/${programId}/webhooks`,
  delivery: (programId: string, deliveryId: string) => `/dashboard/${programId}/webhooks/deliveries/${deliveryId}`,
};

/** The signed-in account's own routes (no program): app/api/account. */
export const accountApi = {
  link: "/api/account/link",
  password: "/api/account/password",
  totpSetup: "/api/account/totp/setup",
  totpConfirm: "/api/account/totp/confirm",
  totpDisable: "/api/account/totp/disable",
};

/** React Query keys; a write invalidates by prefix (every search, one customer's history). */
export const queryKeys = {
  searches: ["search"] as const,
  search: (programId: string, q: string) => ["search", programId, q] as const,
  history: (customerId: string) => ["history", customerId] as const,
  timeline: (customerId: string, kind?: string | null) =>
    kind === undefined ? (["timeline", customerId] as const) : (["timeline", customerId, kind ?? "all"] as const),
};
