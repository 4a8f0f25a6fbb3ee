import type { LedgerSource, LedgerType } from "./vocabulary";
import type { PendingOption } from "./pending-rules";

/** A change of a customer's balance, as every writer of the ledger asks for it (ledger.ts `changeBalance`). */
export interface BalanceChange {
  programId: string;
  customerId: string;
  /** Signed and non-zero. */
  points: number;
  type: LedgerType;
  source: LedgerSource;
  /** Who: `api_key:<id>`, `staff:<id>`, `customer:<id>` or `system`. */
  actor: string;
  reason?: string | null;
  metadata?: Record<string, unknown> | null;
  idempotencyKey?: string | null;
  earningFlowId?: string | null;
  /** The integrator's order the entry belongs to (increase, earning-flow runs, and their reversals). */
  orderId?: string | null;
  /** On a `reversal`: the entry it reverses (lib/domain/reversals.ts); its lot is consumed first. */
  reversesId?: string | null;
  /** The business time of the change (clock.ts); the program's clock, read once, when absent. */
  now?: Date;
  /**
   * An earn that may go pending (pending-rules.ts): "program" (the program's setting; the API's increase), or a
   * campaign's / earning flow's override; absent: never pending (the system's own earns).
   */
  pending?: PendingOption | null;
  /** A matured pending earn whose tier points counted at the earn: it does not count towards tiers again. */
  tierCounted?: boolean;
}
