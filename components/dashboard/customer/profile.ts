import type { customerProfile } from "@/lib/staff/queries/customers/page";
import { queryKeys } from "@/lib/staff/urls";

/** The customer page's data (one load, in the page) as its cards receive it. Types only cross to the browser. */
export type CustomerProfile = NonNullable<Awaited<ReturnType<typeof customerProfile>>>;
export type CustomerData = CustomerProfile["customer"];

/** What a write on the customer page changes: its history, its timeline and any search result showing the customer. */
export const customerQueries = (customerId: string) => [
  queryKeys.history(customerId),
  queryKeys.timeline(customerId),
  queryKeys.searches,
];
