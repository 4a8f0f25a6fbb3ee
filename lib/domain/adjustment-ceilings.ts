import "server-only";
import type { Role } from "./vocabulary";

/**
 * The one place for the per-role ceilings of manual balance adjustments from the dashboard: the largest number of
 * points (either sign) one adjustment by that role may move. Each program stores its own (Program.adjustCeiling…,
 * set with `loyalty program update --adjust-ceiling-support N --adjust-ceiling-manager N|off`); null is no ceiling.
 * Owners have none. The /v1 API (integrators' keys) is not bound by them. Pure: the dashboard's form uses it too.
 */

export const DEFAULT_ADJUST_CEILINGS = { support: 10_000, manager: 1_000_000 } as const;

export interface AdjustCeilings {
  support: number | null;
  manager: number | null;
}

/** Role → its ceiling; `undefined` for a role without one of its own (owner: unlimited). */
const CEILING_OF: Record<Role, (c: AdjustCeilings) => number | null> = {
  viewer: () => 0, // holds no balance.adjust permission anyway
  support: (c) => c.support,
  manager: (c) => c.manager,
  owner: () => null,
};

/** The roles that adjust balances, from least to most trusted: who to ask for more. */
const ESCALATION: Role[] = ["support", "manager", "owner"];

export const ceilingFor = (role: Role, ceilings: AdjustCeilings): number | null => CEILING_OF[role](ceilings);

const points = (n: number) => n.toLocaleString("en-US");

function orList(roles: string[]): string {
  return roles.length <= 1 ? (roles[0] ?? "") : `${roles.slice(0, -1).join(", ")} or ${roles.at(-1)}`;
}

/** "Up to 10,000 points for support; ask a manager or owner": the rule for `role`, or null when it has no ceiling. */
export function ceilingRule(role: Role, ceilings: AdjustCeilings, amount?: number): string | null {
  const ceiling = ceilingFor(role, ceilings);
  if (ceiling === null) return null;
  const above = ESCALATION.filter((r) => {
    const theirs = ceilingFor(r, ceilings);
    return theirs === null || (theirs > ceiling && (amount === undefined || theirs >= Math.abs(amount)));
  });
  const who = above.map((r, i) => (i === 0 ? `${/^[aeiou]/.test(r) ? "an" : "a"} ${r}` : r));
  return `Up to ${points(ceiling)} points for ${role}${who.length ? `; ask ${orList(who)}` : ""}`;
}

/** The refusal message when `amount` is above `role`'s ceiling, else null. */
export function aboveCeiling(role: Role, ceilings: AdjustCeilings, amount: number): string | null {
  const ceiling = ceilingFor(role, ceilings);
  return ceiling !== null && Math.abs(amount) > ceiling ? ceilingRule(role, ceilings, amount) : null;
}
