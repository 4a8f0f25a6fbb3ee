/**
 * The one list of the /v1 schema modules. Importing it registers every schema with an id in zod's global
 * registry; lib/api/openapi/document.ts builds the document's components from these modules' own schemas: a new resource module goes here.
 * Everything else imports the resource module it needs directly.
 */
export * as customers from "./customers";
export * as integrations from "./integrations";
export * as tiers from "./tiers";
export * as common from "./common";
export * as points from "./points";
export * as earningFlows from "./earning-flows";
export * as rewards from "./rewards";
export * as coupons from "./coupons";
export * as notifications from "./notifications";
export * as events from "./events";
export * as balanceExplained from "./balance-explained";
export * as reversals from "./reversals";
export * as tokens from "./tokens";
export * as clock from "./clock";
export * as campaigns from "./campaigns";
export * as segments from "./segments";
export * as simulations from "./simulations";
export * as reports from "./reports";
