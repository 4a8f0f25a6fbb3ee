import "server-only";
import { moneyOf, parsePointValue } from "@/lib/domain/point-value";

/**
 * The document's request and response examples, one coherent story: Jane (customer C) of program P earns, spends,
 * redeems and gets a coupon. Every value here is validated against its schema by test/unit/openapi-examples.test.ts,
 * and the dashboard's API reference renders the same `examples` objects.
 */

export type Examples = Record<string, { summary: string; value: unknown }>;

const P = "0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a";
const C = "0193a5b2-7a20-7d41-8c55-3e2f1a0b9c8d";
const KEY = "0193a5b2-5b10-7e22-9f31-4c3d2b1a0e9f";
const TIER_SILVER = "0193a5b2-8c30-7a52-8d66-4f3e2b1c0d9e";
const REWARD = "0193a5b2-9d40-7b63-9e77-5a4f3c2d1e0f";
const POOL = "0193a5b2-ae50-7c74-8f88-6b5a4d3e2f10";
const TX1 = "0193a5b2-bf60-7d85-9a99-7c6b5e4f3a21";
const TX2 = "0193a5b2-c070-7e96-8baa-8d7c6f5a4b32";
const AT = "2026-11-22T15:31:33.000Z";
const EMAIL = "jane.doe@example.com";
const CAMPAIGN_ID = "0193a5b3-3e4f-7a51-8c6d-7e8f9a0b1c2d";

const one = (summary: string, value: unknown): Examples => ({ default: { summary, value } });

const transaction = (id: string, type: string, points: number, balanceAfter: number, extra: object = {}) => ({
  id,
  customerId: C,
  type,
  points,
  balanceAfter,
  reason: null,
  source: "api",
  actor: `api_key:${KEY}`,
  idempotencyKey: null,
  metadata: null,
  orderId: null,
  reversesId: null,
  createdAt: AT,
  expiresAt: null,
  ...extra,
});
const earned = transaction(TX1, "earn", 250, 1250, {
  reason: "Order #1042",
  idempotencyKey: "order-1042",
  metadata: { orderId: "1042", store: "Lyon" },
  orderId: "1042",
  expiresAt: "2027-11-22T15:31:33.000Z",
});
const spent = transaction(TX2, "spend", -100, 1150, { reason: "Goodwill correction" });
const reversal = (points: number, balanceAfter: number, requested: number, reason: string) =>
  transaction("0193a5b3-5a10-7b2e-84dd-16a5f24e3ecb", "reversal", -points, balanceAfter, {
    reason,
    metadata: { requested, unrecovered: requested - points },
    orderId: "1042",
    reversesId: TX1,
  });

const silver = {
  id: TIER_SILVER,
  programId: P,
  name: "Silver",
  content: "5% more points on every order.",
  image: "https://cdn.example.com/tiers/silver.png",
  requiredPoints: 1000,
  factor: 1.05,
  createdAt: AT,
  updatedAt: AT,
};

const customer = {
  id: C,
  programId: P,
  email: EMAIL,
  origin: "API",
  referral: null,
  utmCampaign: null,
  utmSource: null,
  utmMedium: null,
  language: "en",
  balanceNotifications: true,
  tierNotifications: true,
  rewardAvailableNotifications: true,
  locationNotifications: false,
  marketingNotifications: false,
  referralEarned: false,
  customAttributes: { favouriteStore: "Madrid" },
  createdAt: AT,
  updatedAt: AT,
  userData: {
    id: "0193a5b2-d180-7fa7-9cbb-9e8d7a6b5c43",
    customerId: C,
    externalCustomerId: "crm-00042",
    firstName: "Jane",
    lastName: "Doe",
    phone: "+33 6 12 34 56 78",
    birthdate: null,
    emailVerified: true,
    createdAt: AT,
    updatedAt: AT,
  },
  loyaltyData: {
    id: "0193a5b2-e290-70b8-8dcc-af9e8b7c6d54",
    customerId: C,
    loyaltyCustomerId: "LC-7K2M9Q",
    balance: 1250,
    pendingPoints: 0,
    pending: [],
    memberSince: AT,
    tierStatus: "earned",
    referralLink: null,
    createdAt: AT,
    updatedAt: AT,
  },
  customerTier: {
    id: "0193a5b2-f3a0-71c9-9edd-b0af9c8d7e65",
    customerId: C,
    currentTierId: TIER_SILVER,
    carryTierId: null,
    currentTierPoints: 1250,
    carryTierPoints: 0,
    tierChangedAt: AT,
    recalculationDate: "2027-01-01T00:00:00.000Z",
    currentTier: silver,
    carryTier: null,
  },
};

const redemption = {
  redemption: {
    id: "0193a5b3-04b0-72da-8fee-c1b0ad9e8f76",
    rewardId: REWARD,
    customerId: C,
    code: "KQ7MZ-4HT2P",
    points: 500,
    transactionId: TX2,
    metadata: { channel: "app" },
    createdAt: AT,
    status: "active",
    cancelledAt: null,
    cancelReason: null,
  },
  balance: 750,
};

/** Jane's 1,250 points explained: three open lots, 900 points expiring in January, 1,250 tier points earned. */
const balanceExplained = {
  balance: 1250,
  asOf: AT,
  lots: [
    {
      transactionId: "0193a5b3-6b20-7c3f-8d4e-2f3a4b5c6d7e",
      type: "earn",
      reason: "Order #981",
      points: 1000,
      remaining: 900,
      earnedAt: "2026-01-15T10:12:00.000Z",
      expiresAt: "2027-01-15T10:12:00.000Z",
    },
    {
      transactionId: "0193a5b3-7c30-7d4f-9e5f-3a4b5c6d7e8f",
      type: "adjust",
      reason: "Goodwill: late delivery",
      points: 100,
      remaining: 100,
      earnedAt: "2026-05-02T08:00:00.000Z",
      expiresAt: "2027-05-02T08:00:00.000Z",
    },
    {
      transactionId: TX1,
      type: "earn",
      reason: "Order #1042",
      points: 250,
      remaining: 250,
      earnedAt: AT,
      expiresAt: "2027-11-22T15:31:33.000Z",
    },
  ],
  lotsCount: 3,
  lotsTruncated: false,
  unlistedPoints: 0,
  pending: { points: 0, items: [] },
  expiring: { within30Days: 0, within60Days: 900, within90Days: 900 },
  expiringByMonth: [
    "2026-11",
    "2026-12",
    "2027-01",
    "2027-02",
    "2027-03",
    "2027-04",
    "2027-05",
    "2027-06",
    "2027-07",
    "2027-08",
    "2027-09",
    "2027-10",
  ].map((month) => ({ month, points: month === "2027-01" ? 900 : month === "2027-05" ? 100 : 0 })),
  tier: {
    current: { id: TIER_SILVER, name: "Silver", requiredPoints: 1000 },
    status: "earned",
    projected: { id: TIER_SILVER, name: "Silver", requiredPoints: 1000 },
    next: { id: "0193a5b3-8d40-7e50-8f60-4b5c6d7e8f90", name: "Gold", requiredPoints: 5000 },
    pointsToNext: 3750,
    points: 1250,
    periodStart: "2026-01-01T00:00:00.000Z",
    periodEnd: "2027-01-01T00:00:00.000Z",
    earned: { points: 1250, entries: 2 },
    reversed: { points: 0, entries: 0 },
    notCounted: [
      { type: "adjust", points: 100, entries: 1 },
      { type: "spend", points: -100, entries: 1 },
    ],
  },
};

const CANCEL_REASON = "Order cancelled at the till";
const cancelled = {
  redemption: {
    ...redemption.redemption,
    status: "cancelled",
    cancelledAt: "2026-11-22T16:02:10.000Z",
    cancelReason: CANCEL_REASON,
  },
  balance: 1250,
  transaction: transaction("0193a5b3-6b20-7c3f-8d4e-2f3a4b5c6d7e", "reversal", 500, 1250, {
    reason: `redemption cancelled: ${CANCEL_REASON}`,
    metadata: { redemptionId: redemption.redemption.id, reverses: TX2 },
    reversesId: TX2,
    createdAt: "2026-11-22T16:02:10.000Z",
  }),
  expiredPoints: 0,
};

const CAMPAIGN = "0193a5b3-1c2d-7e3f-8a4b-5c6d7e8f9a0b";
const PURCHASE_ATTRIBUTES = {
  total: { type: "number", required: true },
  channel: { type: "string" },
  items: { type: "items", fields: { sku: { type: "string" }, price: { type: "number" } } },
};
const purchaseType = { type: "purchase", attributes: PURCHASE_ATTRIBUTES, createdAt: AT, updatedAt: AT };
const weekendGold = {
  name: "Double points on weekends for Gold",
  trigger: { event: "purchase" },
  conditions: { all: [{ attr: "customer.tier", op: "eq", value: "Gold" }] },
  effects: [{ type: "multiply_points", factor: 2 }],
  limits: { budgetPoints: 10000 },
  schedule: { daysOfWeek: [6, 7] },
  priority: 10,
  stacking: "stack",
};
const campaign = (status: string, version: number | null, draft: object | null) => ({
  id: CAMPAIGN,
  name: weekendGold.name,
  status,
  version,
  draft,
  budgetUsed: version === null ? 0 : 250,
  createdAt: AT,
  updatedAt: AT,
});
const { name: _name, ...weekendGoldDefinition } = weekendGold;
void _name;
const campaignEvent = {
  event: { id: "0193a5b3-2d3e-7f40-9b5c-6d7e8f9a0b1c", type: "purchase", occurredAt: AT },
  effects: [
    {
      campaignId: CAMPAIGN,
      campaignVersion: 1,
      type: "multiply_points",
      points: 250,
      couponCode: null,
      transactionId: TX1,
      pending: null,
    },
  ],
  balance: 1250,
  skipped: [{ campaignId: "0193a5b3-3e4f-7a51-8c6d-7e8f9a0b1c2d", reason: "condition_false" }],
};

/** Request bodies, by operationId. */
const SEGMENT_FILTER = {
  all: [
    { attr: "customer.tier", op: "eq", value: "Gold" },
    { attr: "events.purchase.count", window: "P90D", op: "eq", value: 0 },
  ],
};
const SEGMENT = "0193a5b3-7c20-7d1e-9a3b-4c5d6e7f8091";
const customerAttribute = { name: "favouriteStore", type: "string", createdAt: AT, updatedAt: AT };
const segment = {
  id: SEGMENT,
  name: "Gold, no purchase in 90 days",
  filter: SEGMENT_FILTER,
  emitEvents: true,
  recomputedAt: AT,
  createdAt: AT,
  updatedAt: AT,
};
const member = { customerId: C, email: EMAIL };

export const REQUEST_EXAMPLES: Record<string, Examples> = {
  createOrUpdateResources: {
    create: {
      summary: "Create (or update) a customer",
      value: [
        {
          email: EMAIL,
          feature: "user",
          payload: { externalCustomerId: "crm-00042", firstName: "Jane", lastName: "Doe", emailVerified: true },
        },
      ],
    },
    rename: {
      summary: "Change a customer's e-mail",
      value: [{ email: EMAIL, feature: "user", payload: { email: "jane@example.org" } }],
    },
    migrate: {
      summary: "Move a customer in from JeriCommerce: create it, then set its balance, member-since date and tier",
      value: [
        { email: EMAIL, feature: "users", payload: { externalCustomerId: "crm-00042", firstName: "Jane" } },
        {
          email: EMAIL,
          feature: "loyalty",
          payload: {
            loyaltyCustomerId: "jc-7f3a9c",
            balance: 1250,
            memberSince: "2021-03-14T09:26:53.000Z",
            tierStatus: "Silver",
          },
        },
      ],
    },
  },
  deleteResources: one("Erase a customer", [{ email: EMAIL, feature: "user" }]),
  increaseBalance: one("Points for an order", {
    points: 250,
    reason: "Order #1042",
    metadata: { orderId: "1042", store: "Lyon" },
    orderId: "1042",
  }),
  reverseTransaction: {
    part: { summary: "Part of an entry", value: { points: 100, reason: "Item returned" } },
    all: { summary: "Everything left of it", value: { reason: "Order cancelled" } },
  },
  simulateCampaign: one("The last 30 days", { from: "2026-10-27T00:00:00.000Z", to: "2026-11-26T00:00:00.000Z" }),
  advanceProgramClock: {
    preview: { summary: "Preview a year, storing nothing", value: { to: "2027-06-01T00:00:00.000Z", dryRun: true } },
    apply: { summary: "Apply it", value: { to: "2027-06-01T00:00:00.000Z" } },
  },
  refundOrder: {
    partial: { summary: "A partial refund", value: { amount: 20, total: 80, reason: "One item returned" } },
    full: { summary: "The whole order", value: { reason: "Order cancelled" } },
  },
  decreaseBalance: one("A correction", { points: 100, reason: "Goodwill correction" }),
  executeEarningFlow: {
    withParams: { summary: "A flow that pays per unit of `amount`", value: { params: { amount: 42.5 } } },
    fixed: { summary: "A flow with fixed points (the body may also be left out)", value: {} },
  },
  executeCustomEarningFlow: one("JeriCommerce's shape", { customerEmail: EMAIL }),
  redeemReward: one("With metadata (the body may be left out)", { metadata: { channel: "pos", store: "Lyon" } }),
  redeemMyReward: one("With metadata (the body may be left out)", { metadata: { channel: "app" } }),
  assignCoupon: one("From a pool", { couponPoolId: POOL }),
  putCustomerAttribute: one("A string attribute", { type: "string" }),
  createSegment: one("Gold, no purchase in 90 days", {
    name: "Gold, no purchase in 90 days",
    emitEvents: true,
    filter: SEGMENT_FILTER,
  }),
  updateSegment: one("Renamed", { name: "Gold, lapsed", emitEvents: true, filter: SEGMENT_FILTER }),
  previewSegment: one("The builder's live count", { filter: SEGMENT_FILTER }),
  putEventType: one("A purchase with its line items", { attributes: PURCHASE_ATTRIBUTES }),
  createCampaign: one("Double points on weekends for Gold", weekendGold),
  updateCampaign: one("Triple points instead", { ...weekendGold, effects: [{ type: "multiply_points", factor: 3 }] }),
  sendCustomerEvent: one("A purchase", {
    type: "purchase",
    orderId: "1042",
    attributes: { total: 125, channel: "web", items: [{ sku: "shoe-42", price: 125 }] },
  }),
  cancelRedemption: one("A cancelled order", { reason: CANCEL_REASON }),
  confirmOrder: one("Delivered (the body may be left out)", {}),
  recordReferral: one("The referrer's code, from their referral link", { code: "K7QM3RTX" }),
  sendPushNotification: one("A balance update", {
    title: "You earned 250 points",
    body: "Thanks for your order #1042. Your balance is now 1,250 points.",
    category: "balance",
    data: { orderId: "1042" },
  }),
};

/** Success bodies, by operationId. */
/** Two days of points accounting at 0.01 EUR a point; the second day erases a customer who held 1,250 points. */
const accountingDay = (day: string | null, a: Record<string, number>, breakage: number) => {
  const amounts = {
    pendingCreated: 0,
    pendingMatured: 0,
    pendingCancelled: 0,
    pendingOutstanding: 0,
    erased: 0,
    ...a,
  };
  const money = Object.fromEntries(Object.entries(amounts).map(([k, v]) => [k, moneyOf(v, parsePointValue("0.01")!)]));
  return { ...(day ? { day } : {}), ...amounts, breakage, money };
};
const accountingFirst = {
  openingOutstanding: 120000,
  earned: 5000,
  reversed: 250,
  redeemed: 3000,
  redemptionsCancelled: 100,
  expired: 400,
  adjusted: -50,
  closingOutstanding: 121400,
};
const accountingSecond = {
  openingOutstanding: 121400,
  earned: 4200,
  reversed: 0,
  redeemed: 2500,
  redemptionsCancelled: 0,
  expired: 0,
  adjusted: -1250,
  erased: 1250,
  closingOutstanding: 121850,
};
const pointsAccounting = {
  from: "2026-11-21",
  to: "2026-11-22",
  timeZone: "Europe/Madrid",
  currency: "EUR",
  pointValue: "0.010000",
  rolledUpThrough: "2026-11-21",
  days: [accountingDay("2026-11-21", accountingFirst, 0.0412), accountingDay("2026-11-22", accountingSecond, 0.0409)],
  totals: accountingDay(
    null,
    {
      openingOutstanding: 120000,
      earned: 9200,
      reversed: 250,
      redeemed: 5500,
      redemptionsCancelled: 100,
      expired: 400,
      adjusted: -1300,
      erased: 1250,
      closingOutstanding: 121850,
    },
    0.0409,
  ),
};

export const RESPONSE_EXAMPLES: Record<string, Examples> = {
  getPointsAccounting: one("Two days in points and in euros", pointsAccounting),
  getCustomerByEmail: one("A customer in the Silver tier", customer),
  getMe: one("The token's customer", customer),
  recordReferral: one("Referred by the owner of K7QM3RTX", {
    ...customer,
    referral: "K7QM3RTX",
    loyaltyData: { ...customer.loyaltyData, referralLink: "https://shop.example.com/join?ref=9WQX4HKP" },
  }),
  increaseBalance: one("250 points earned", { balance: 1250, transaction: earned }),
  decreaseBalance: one("100 points taken", { balance: 1150, transaction: spent }),
  explainBalance: one("1,250 points: three lots, 900 expiring in January", balanceExplained),
  explainMyBalance: one("1,250 points: three lots, 900 expiring in January", balanceExplained),
  reverseTransaction: {
    taken: {
      summary: "Reversed in full",
      value: { balance: 1050, transaction: reversal(100, 1050, 100, "Item returned"), unrecovered: 0 },
    },
    spent: {
      summary: "Points already spent: 40 not recovered",
      value: { balance: 0, transaction: reversal(60, 0, 100, "Item returned"), unrecovered: 40 },
    },
  },
  refundOrder: one("A quarter of the order refunded", {
    refundId: "0193a5b3-6b30-7c4f-85ee-27b6035f4fdc",
    orderId: "1042",
    orderPoints: 250,
    refundedShare: 0.25,
    pointsReversed: 62,
    totalReversed: 62,
    unrecovered: 0,
    pendingCancelled: 0,
    transactions: [reversal(62, 1188, 62, "One item returned")],
  }),
  listTransactions: one("A page with more to come", {
    data: [spent, earned],
    nextCursor: "MjAyNi0xMS0yMlQxNTozMTozMy4wMDBa",
  }),
  getMyTransactions: one("The last page", { data: [spent, earned], nextCursor: null }),
  executeEarningFlow: {
    earned: {
      summary: "Points earned",
      value: {
        pointsEarned: 42,
        balance: 1292,
        transaction: transaction(TX1, "earn", 42, 1292, {
          source: "earning_flow",
          metadata: { flowKey: "purchase", amount: 42.5 },
        }),
        capped: null,
        pending: null,
      },
    },
    capped: {
      summary: "Limited by the flow's daily cap",
      value: { pointsEarned: 0, balance: 1250, transaction: null, capped: "cap_per_day", pending: null },
    },
  },
  getProgramClock: one("A test program's clock", { now: "2026-03-01T00:00:00.000Z", mode: "test" }),
  simulateCampaign: one("Half the points, with a budget: one customer could not have afforded a redemption", {
    campaign: {
      ...{ id: CAMPAIGN_ID, name: "Double points weekend", status: "active", version: 2, draftVersion: 3 },
      pending: null,
    },
    from: "2026-10-27T00:00:00.000Z",
    to: "2026-11-26T00:00:00.000Z",
    limits: { maxDays: 366, maxEvents: 1000000 },
    replayed: { events: 2, entries: 1, customers: 2, skippedEvents: 0 },
    baseline: {
      pointsIssued: 30,
      campaignPoints: 30,
      campaignApplications: 2,
      customersEarning: 2,
      unaffordableRedemptions: 0,
      customersShort: 0,
      outstanding: 20,
      pendingAtEnd: 0,
    },
    candidate: {
      pointsIssued: 3,
      campaignPoints: 3,
      campaignApplications: 2,
      customersEarning: 2,
      unaffordableRedemptions: 1,
      customersShort: 1,
      outstanding: -7,
      pendingAtEnd: 0,
    },
    difference: {
      pointsIssued: -27,
      customersAffected: 2,
      tierMoves: { up: 0, down: 0 },
      budgetExhaustedAt: "2026-11-02T10:00:00.000Z",
      liability: { points: -27 },
    },
    daily: [
      { day: "2026-11-01", baseline: 10, candidate: 2 },
      { day: "2026-11-02", baseline: 20, candidate: 1 },
    ],
    shortfalls: {
      customers: 1,
      redemptions: 1,
      list: [{ customerId: C, email: EMAIL, at: "2026-11-01T12:00:00.000Z", points: -10, balanceBefore: 2 }],
    },
    sample: [
      {
        customerId: C,
        email: EMAIL,
        baselinePoints: 10,
        candidatePoints: 2,
        why: [
          {
            campaignId: CAMPAIGN_ID,
            name: "Double points weekend",
            baselinePoints: 10,
            candidatePoints: 2,
            baselineSkipped: {},
            candidateSkipped: {},
          },
        ],
      },
    ],
  }),
  advanceProgramClock: one("Fifteen months: two lots expired, a period closed with carry-over", {
    from: "2026-03-01T00:00:00.000Z",
    to: "2027-06-01T00:00:00.000Z",
    dryRun: false,
    applied: {
      expiredLots: 2,
      expiredPoints: 1500,
      tierChanges: 0,
      pendingActivated: 0,
      lifecycleFired: 0,
      webhooks: 2,
    },
    steps: 2,
    timeline: [
      { at: "2027-01-01T00:00:00.000Z", kind: "points.expired", customer: C, detail: { points: 1200, lots: 1 } },
      {
        at: "2027-01-01T00:00:00.000Z",
        kind: "tier.period_closed",
        customer: C,
        detail: {
          fromTierId: silver.id,
          toTierId: silver.id,
          periodTierPoints: 1500,
          carryTierId: silver.id,
          nextPeriodEndsAt: "2028-01-01T00:00:00.000Z",
        },
      },
      { at: "2027-03-01T00:00:00.000Z", kind: "points.expired", customer: C, detail: { points: 300, lots: 1 } },
    ],
    timelineTotal: 3,
    timelineLimit: 1000,
  }),
  listTiers: one("Two tiers", {
    data: [
      {
        ...silver,
        id: "0193a5b3-15c0-73eb-90ff-d2c1be0f9a87",
        name: "Base",
        content: null,
        image: null,
        requiredPoints: 0,
        factor: 1,
      },
      silver,
    ],
  }),
  getCustomerToken: one("A token valid one hour", {
    token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIwMTkzYTViMi03YTIwIn0.c2lnbmF0dXJl",
    expiresAt: "2026-11-22T16:31:33.000Z",
  }),
  getCustomerAccessToken: one("JeriCommerce's shape", {
    accessToken: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIwMTkzYTViMi03YTIwIn0.c2lnbmF0dXJl",
  }),
  executeCustomEarningFlow: {
    daily: {
      summary: "A flow with a daily cap: 2 more runs earn today",
      value: { pointsAwarded: 50, remainingExecutions: 2, recurrence: "daily" },
    },
    once: {
      summary: "A once-only flow, now used",
      value: { pointsAwarded: 100, remainingExecutions: 0, recurrence: "once" },
    },
  },
  redeemReward: one("Redeemed", redemption),
  redeemMyReward: one("Redeemed", redemption),
  cancelRedemption: one("Cancelled: 500 points back", cancelled),
  confirmOrder: one("Confirmed: 250 pending points now spendable", {
    orderId: "1042",
    pointsMatured: 250,
    pending: [
      {
        id: "0193a5b3-8d30-7e2f-8b4c-5d6e7f809102",
        customerId: C,
        points: 250,
        status: "matured",
        orderId: "1042",
        reason: null,
        createdAt: AT,
        maturesAt: null,
        settledAt: "2026-11-24T10:00:00.000Z",
        transactionId: TX2,
      },
    ],
  }),
  listCustomerAttributes: one("One declared attribute", { data: [customerAttribute] }),
  getCustomerAttribute: one("A string attribute", customerAttribute),
  putCustomerAttribute: one("As declared", customerAttribute),
  listSegments: one("One segment", { data: [segment] }),
  createSegment: one("Created", segment),
  getSegment: one("A segment", segment),
  updateSegment: one("Renamed", { ...segment, name: "Gold, lapsed" }),
  previewSegment: one("Two customers", { count: 2, sample: [member, { customerId: TX1, email: "bo@example.com" }] }),
  listSegmentMembers: {
    members: { summary: "The members now", value: { data: [member], nextCursor: null } },
    changes: {
      summary: "With updatedSince: who entered or left",
      value: {
        data: [{ ...member, member: false, changedAt: AT }],
        recomputedAt: AT,
        nextCursor: null,
      },
    },
  },
  listCustomerSegments: one("In one segment", { data: [{ id: SEGMENT, name: segment.name }] }),
  listEventTypes: one("One declared type", { data: [purchaseType] }),
  getEventType: one("A purchase", purchaseType),
  putEventType: one("As declared", purchaseType),
  listCampaigns: one("One active campaign", { data: [campaign("active", 1, null)], nextCursor: null }),
  createCampaign: one("A draft", campaign("draft", null, weekendGold)),
  getCampaign: one("Version 1 running", {
    ...campaign("active", 1, null),
    versions: [{ version: 1, name: weekendGold.name, definition: weekendGoldDefinition, activatedAt: AT }],
  }),
  updateCampaign: one("A change waiting for activation", campaign("active", 1, weekendGold)),
  activateCampaign: one("Version 1 running", campaign("active", 1, null)),
  pauseCampaign: one("Paused", campaign("paused", 1, null)),
  resumeCampaign: one("Running again", campaign("active", 1, null)),
  endCampaign: one("Ended", campaign("ended", 1, null)),
  sendCustomerEvent: one("Points from one campaign, another skipped", campaignEvent),
  assignCoupon: one("A code assigned", {
    coupon: { code: "WELCOME-8F3K2", couponPoolId: POOL, assignedAt: AT, expiresAt: "2026-12-31T23:59:59.000Z" },
  }),
  sendPushNotification: {
    queued: {
      summary: "Queued for delivery",
      value: { notification: { id: "0193a5b3-26d0-74fc-81aa-e3d2cf1a0b98", status: "queued" } },
    },
    suppressed: {
      summary: "The customer turned the category off",
      value: { notification: { id: "0193a5b3-26d0-74fc-81aa-e3d2cf1a0b98", status: "suppressed" } },
    },
  },
  listRewards: one("One reward", {
    data: [
      {
        id: REWARD,
        programId: P,
        name: "Free coffee",
        description: "Any hot drink, any size.",
        image: "https://cdn.example.com/rewards/coffee.png",
        costPoints: 500,
        stock: null,
        active: true,
        createdAt: AT,
        updatedAt: AT,
      },
    ],
  }),
};

export const EXAMPLE_IDS = { programId: P, customerId: C, email: EMAIL, rewardId: REWARD, at: AT, transactionId: TX1 };
