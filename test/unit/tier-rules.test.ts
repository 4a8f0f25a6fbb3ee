/**
 * The pure tier rules of API.md §4 (lib/domain/tier-rules.ts), by example: which tier points reach, the immediate
 * upgrade on earning, the period close at recalculationDate (carry tier and points, downgrades only there, several
 * missed periods at once), the projection, the re-evaluation after tiers change, a reversed earn, a migrated tier and
 * calendar-month arithmetic.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  addMonths,
  applyEarn,
  migratedTier,
  recalculate,
  reevaluate,
  reverseEarn,
  sortTiers,
  tierAtClose,
  tierForPoints,
  type TierDef,
  type TierState,
} from "@/lib/domain/tier-rules";

// Deliberately not in requiredPoints order: the rules must sort them.
const TIERS: TierDef[] = [
  { id: "gold", requiredPoints: 5000, factor: 1.5 },
  { id: "bronze", requiredPoints: 0, factor: 1 },
  { id: "silver", requiredPoints: 1000, factor: 1.25 },
];
const SORTED = sortTiers(TIERS);

const JOINED = new Date("2026-01-15T09:30:00.000Z");
const RECALC = new Date("2027-01-15T09:30:00.000Z");
const at = (iso: string) => new Date(iso);

/** A customer as created: base tier, nothing earned, one 12-month period ahead. */
const fresh = (overrides: Partial<TierState> = {}): TierState => ({
  currentTierId: "bronze",
  carryTierId: null,
  currentTierPoints: 0,
  carryTierPoints: 0,
  tierChangedAt: JOINED,
  recalculationDate: RECALC,
  tierStatus: "base",
  ...overrides,
});

describe("sortTiers / tierForPoints", () => {
  test("sorts by requiredPoints without changing its input", () => {
    assert.deepEqual(
      SORTED.map((t) => t.id),
      ["bronze", "silver", "gold"],
    );
    assert.equal(TIERS[0]!.id, "gold", "input untouched");
  });

  test("is the highest tier whose requiredPoints the points reach, boundaries included", () => {
    const cases: [number, string | null][] = [
      [0, "bronze"],
      [999, "bronze"],
      [1000, "silver"],
      [4999, "silver"],
      [5000, "gold"],
      [2_000_000_000, "gold"],
    ];
    for (const [points, id] of cases) assert.equal(tierForPoints(SORTED, points)?.id ?? null, id, `${points} points`);
  });

  test("is null when no tier is reached or there are no tiers", () => {
    assert.equal(tierForPoints([], 100), null);
    assert.equal(tierForPoints(sortTiers([{ id: "club", requiredPoints: 100, factor: 1 }]), 99), null);
    assert.equal(tierForPoints(sortTiers([{ id: "club", requiredPoints: 100, factor: 1 }]), 100)?.id, "club");
  });
});

describe("applyEarn", () => {
  test("below the next tier: counts the points, tier, status and tierChangedAt unchanged", () => {
    const s = applyEarn(fresh(), TIERS, 999, at("2026-02-01T00:00:00.000Z"));
    assert.equal(s.currentTierPoints, 999);
    assert.equal(s.currentTierId, "bronze");
    assert.equal(s.tierStatus, "base");
    assert.equal(s.tierChangedAt, JOINED);
    assert.equal(s.recalculationDate, RECALC, "earning never moves the recalculation date");
  });

  test("reaching a higher tier's requiredPoints upgrades at once: tierChangedAt = now, status earned", () => {
    const now = at("2026-03-01T12:00:00.000Z");
    const s = applyEarn(applyEarn(fresh(), TIERS, 600, at("2026-02-01T00:00:00.000Z")), TIERS, 400, now);
    assert.equal(s.currentTierPoints, 1000);
    assert.equal(s.currentTierId, "silver");
    assert.equal(s.tierStatus, "earned");
    assert.deepEqual(s.tierChangedAt, now);
    assert.equal(s.carryTierId, null);
    assert.equal(s.carryTierPoints, 0);
  });

  test("one large earn skips straight to the highest tier reached", () => {
    const now = at("2026-03-01T12:00:00.000Z");
    const s = applyEarn(fresh(), TIERS, 7000, now);
    assert.equal(s.currentTierId, "gold");
    assert.equal(s.tierStatus, "earned");
    assert.deepEqual(s.tierChangedAt, now);
  });

  test("no downgrade mid-period: a carried Gold earning a little stays Gold and carried", () => {
    const carried = fresh({ currentTierId: "gold", carryTierId: "gold", carryTierPoints: 6000, tierStatus: "carried" });
    const s = applyEarn(carried, TIERS, 10, at("2026-02-01T00:00:00.000Z"));
    assert.equal(s.currentTierId, "gold");
    assert.equal(s.tierStatus, "carried");
    assert.equal(s.currentTierPoints, 10);
    assert.equal(s.tierChangedAt, JOINED, "no tier change, no new tierChangedAt");
    // Even reaching Silver in this period keeps the better, carried Gold.
    const s2 = applyEarn(s, TIERS, 1500, at("2026-03-01T00:00:00.000Z"));
    assert.equal(s2.currentTierId, "gold");
    assert.equal(s2.tierStatus, "carried");
  });

  test("re-earning the carried tier in this period makes it earned without a tier change", () => {
    const carried = fresh({
      currentTierId: "silver",
      carryTierId: "silver",
      carryTierPoints: 1200,
      tierStatus: "carried",
    });
    const s = applyEarn(carried, TIERS, 1000, at("2026-04-01T00:00:00.000Z"));
    assert.equal(s.currentTierId, "silver");
    assert.equal(s.tierStatus, "earned");
    assert.equal(s.tierChangedAt, JOINED);
  });

  test("a carried tier upgraded by this period's points is earned, with tierChangedAt = now", () => {
    const now = at("2026-05-05T05:05:05.005Z");
    const carried = fresh({
      currentTierId: "silver",
      carryTierId: "silver",
      carryTierPoints: 1200,
      tierStatus: "carried",
    });
    const s = applyEarn(carried, TIERS, 5000, now);
    assert.equal(s.currentTierId, "gold");
    assert.equal(s.tierStatus, "earned");
    assert.deepEqual(s.tierChangedAt, now);
    assert.equal(s.carryTierId, "silver", "the carry is left alone");
    assert.equal(s.carryTierPoints, 1200);
  });
});

describe("recalculate", () => {
  test("before recalculationDate: nothing changes", () => {
    const s = fresh({ currentTierId: "silver", currentTierPoints: 1500, tierStatus: "earned" });
    assert.deepEqual(recalculate(s, TIERS, 12, new Date(RECALC.getTime() - 1)), s);
  });

  test("at recalculationDate: the period's points and tier become the carry, points reset, date moves one period", () => {
    const s = fresh({
      currentTierId: "gold",
      currentTierPoints: 6000,
      tierStatus: "earned",
      tierChangedAt: at("2026-06-01T00:00:00.000Z"),
    });
    const r = recalculate(s, TIERS, 12, RECALC);
    assert.equal(r.carryTierId, "gold");
    assert.equal(r.carryTierPoints, 6000);
    assert.equal(r.currentTierPoints, 0);
    assert.equal(r.currentTierId, "gold", "keeps the carried tier");
    assert.equal(r.tierStatus, "carried");
    assert.deepEqual(r.recalculationDate, at("2028-01-15T09:30:00.000Z"));
    assert.deepEqual(r.tierChangedAt, at("2026-06-01T00:00:00.000Z"), "same tier: tierChangedAt unchanged");
  });

  test("downgrades happen at recalculation: a carried Gold that earned only Silver points becomes carried Silver", () => {
    const now = at("2027-01-20T00:00:00.000Z");
    const s = fresh({
      currentTierId: "gold",
      carryTierId: "gold",
      carryTierPoints: 6000,
      currentTierPoints: 1200,
      tierStatus: "carried",
    });
    const r = recalculate(s, TIERS, 12, now);
    assert.equal(r.currentTierId, "silver");
    assert.equal(r.carryTierId, "silver");
    assert.equal(r.carryTierPoints, 1200);
    assert.equal(r.currentTierPoints, 0);
    assert.equal(r.tierStatus, "carried");
    assert.deepEqual(r.tierChangedAt, now);
  });

  test("a period with too few points falls back to the base tier with status base", () => {
    const now = at("2027-01-15T09:30:00.000Z");
    const s = fresh({ currentTierId: "silver", currentTierPoints: 300, tierStatus: "earned" });
    const r = recalculate(s, TIERS, 12, now);
    assert.equal(r.currentTierId, "bronze");
    assert.equal(r.carryTierId, "bronze", "the tier 300 points reach");
    assert.equal(r.carryTierPoints, 300);
    assert.equal(r.tierStatus, "base");
    assert.deepEqual(r.tierChangedAt, now);
  });

  test("several missed periods are closed one by one: the carry is the last (empty) period's", () => {
    const now = at("2029-02-01T00:00:00.000Z"); // periods ending 2027-01-15, 2028-01-15 and 2029-01-15 have passed
    const s = fresh({ currentTierId: "gold", currentTierPoints: 6000, tierStatus: "earned" });
    const r = recalculate(s, TIERS, 12, now);
    assert.deepEqual(r.recalculationDate, at("2030-01-15T09:30:00.000Z"));
    assert.equal(r.carryTierPoints, 0);
    assert.equal(r.carryTierId, "bronze");
    assert.equal(r.currentTierPoints, 0);
    assert.equal(r.currentTierId, "bronze");
    assert.equal(r.tierStatus, "base");
    assert.deepEqual(r.tierChangedAt, now);
  });

  test("two missed periods after a Gold period: Gold is carried through the first close, lost at the second", () => {
    const s = fresh({ currentTierId: "gold", currentTierPoints: 6000, tierStatus: "earned" });
    const once = recalculate(s, TIERS, 12, at("2027-06-01T00:00:00.000Z"));
    assert.equal(once.currentTierId, "gold");
    const twice = recalculate(s, TIERS, 12, at("2028-01-15T09:30:00.000Z"));
    assert.equal(twice.currentTierId, "bronze");
    assert.equal(twice.carryTierPoints, 0);
    assert.deepEqual(twice.recalculationDate, at("2029-01-15T09:30:00.000Z"));
    // Doing it in two steps gives the same result as in one.
    assert.deepEqual(recalculate(once, TIERS, 12, at("2028-01-15T09:30:00.000Z")), twice);
  });

  test("monthly periods from Jan 31 are clamped to each month's end in turn", () => {
    const s = fresh({ recalculationDate: at("2026-01-31T10:00:00.000Z") });
    const r = recalculate(s, TIERS, 1, at("2026-03-01T00:00:00.000Z"));
    // Jan 31 → Feb 28 (closed too, since it is before Mar 1) → Mar 28.
    assert.deepEqual(r.recalculationDate, at("2026-03-28T10:00:00.000Z"));
  });

  test("a customer without a recalculation date is never recalculated", () => {
    const s = fresh({ recalculationDate: null, currentTierPoints: 6000, currentTierId: "gold", tierStatus: "earned" });
    assert.deepEqual(recalculate(s, TIERS, 12, at("2100-01-01T00:00:00.000Z")), s);
  });

  test("the base tier is the lowest tier even when it needs points: recalculation never leaves a customer without it", () => {
    // customers.ts creates every customer on the program's lowest tier, whatever its requiredPoints; a period in
    // which the customer earned nothing must not take away a tier that 0 points were given at sign-up.
    const club: TierDef[] = [
      { id: "member", requiredPoints: 100, factor: 1 },
      { id: "vip", requiredPoints: 500, factor: 2 },
    ];
    const s = fresh({ currentTierId: "vip", currentTierPoints: 50, tierStatus: "earned" });
    const r = recalculate(s, club, 12, RECALC);
    assert.equal(r.currentTierId, "member");
    assert.equal(r.carryTierId, null, "50 points reach no tier");
    assert.equal(r.carryTierPoints, 50);
    assert.equal(r.tierStatus, "base");
  });
});

describe("tierAtClose (the projection)", () => {
  test("is the tier the period's points reach, at least the base tier, null without tiers", () => {
    assert.equal(tierAtClose(SORTED, 4999)?.id, "silver");
    assert.equal(tierAtClose(sortTiers([{ id: "club", requiredPoints: 100, factor: 1 }]), 10)?.id, "club");
    assert.equal(tierAtClose([], 10), null);
  });
});

describe("reevaluate", () => {
  const NOW = at("2026-06-01T00:00:00.000Z");

  test("a lowered threshold upgrades at once whoever now reaches it, as earned", () => {
    const lowered = TIERS.map((t) => (t.id === "gold" ? { ...t, requiredPoints: 1100 } : t));
    const s = reevaluate(
      fresh({ currentTierId: "silver", currentTierPoints: 1200, tierStatus: "earned" }),
      lowered,
      NOW,
    );
    assert.equal(s.currentTierId, "gold");
    assert.equal(s.tierStatus, "earned");
    assert.equal(s.tierChangedAt, NOW);
  });

  test("a removed tier moves its holders to the best they still qualify for: the carry tier, as carried", () => {
    const withoutGold = TIERS.filter((t) => t.id !== "gold");
    const held = fresh({ currentTierId: "gold", carryTierId: "gold", carryTierPoints: 6000, currentTierPoints: 10 });
    const s = reevaluate({ ...held, tierStatus: "carried" }, withoutGold, NOW);
    assert.equal(s.currentTierId, "silver");
    assert.equal(s.carryTierId, "silver");
    assert.equal(s.tierStatus, "carried");
  });

  test("an unchanged tier keeps tierChangedAt; the lowest tier is base", () => {
    const s = reevaluate(fresh({ currentTierPoints: 10 }), TIERS, NOW);
    assert.equal(s.currentTierId, "bronze");
    assert.equal(s.tierStatus, "base");
    assert.equal(s.tierChangedAt, JOINED);
  });
});

describe("reverseEarn", () => {
  const EARNED_NOW = at("2026-06-01T00:00:00.000Z"); // within the period Jan 15 2026 – Jan 15 2027
  const EARNED_BEFORE = at("2025-06-01T00:00:00.000Z"); // the previous period
  const EARNED_LONG_AGO = at("2024-06-01T00:00:00.000Z");

  test("takes the points off the current period; below the current tier, earned becomes carried", () => {
    const s = fresh({ currentTierId: "silver", currentTierPoints: 1200, tierStatus: "earned" });
    const r = reverseEarn(s, TIERS, 12, EARNED_NOW, 300);
    assert.equal(r.removed, 300);
    assert.equal(r.state.currentTierPoints, 900);
    assert.equal(r.state.currentTierId, "silver", "the tier changes only at the period close");
    assert.equal(r.state.tierStatus, "carried");
  });

  test("never below 0; on the lowest tier the status stays base", () => {
    const r = reverseEarn(fresh({ currentTierPoints: 40 }), TIERS, 12, EARNED_NOW, 100);
    assert.equal(r.removed, 40);
    assert.equal(r.state.currentTierPoints, 0);
    assert.equal(r.state.tierStatus, "base");
  });

  test("an earn of the previous period lowers the carry points only; older periods nothing", () => {
    const s = fresh({ currentTierId: "silver", carryTierId: "silver", carryTierPoints: 1500, tierStatus: "carried" });
    const r = reverseEarn(s, TIERS, 12, EARNED_BEFORE, 600);
    assert.deepEqual(r, { state: { ...s, carryTierPoints: 900 }, removed: 600 });
    assert.deepEqual(reverseEarn(s, TIERS, 12, EARNED_LONG_AGO, 600), { state: s, removed: 0 });
  });
});

describe("migratedTier", () => {
  test("a migrated tier is carried; the lowest is base and carries nothing", () => {
    assert.deepEqual(migratedTier(SORTED, "silver"), {
      currentTierId: "silver",
      carryTierId: "silver",
      tierStatus: "carried",
    });
    assert.deepEqual(migratedTier(SORTED, "bronze"), {
      currentTierId: "bronze",
      carryTierId: null,
      tierStatus: "base",
    });
  });
});

describe("addMonths", () => {
  test("Jan 31 + 1 month is the last day of February (28 or 29), time of day kept", () => {
    assert.deepEqual(addMonths(at("2026-01-31T23:59:59.999Z"), 1), at("2026-02-28T23:59:59.999Z"));
    assert.deepEqual(addMonths(at("2028-01-31T08:00:00.000Z"), 1), at("2028-02-29T08:00:00.000Z"));
  });

  test("other clamps and year boundaries", () => {
    assert.deepEqual(addMonths(at("2026-01-31T00:00:00.000Z"), 2), at("2026-03-31T00:00:00.000Z"));
    assert.deepEqual(addMonths(at("2026-03-31T00:00:00.000Z"), 1), at("2026-04-30T00:00:00.000Z"));
    assert.deepEqual(addMonths(at("2026-12-15T06:00:00.000Z"), 1), at("2027-01-15T06:00:00.000Z"));
    assert.deepEqual(addMonths(at("2028-02-29T00:00:00.000Z"), 12), at("2029-02-28T00:00:00.000Z"));
    assert.deepEqual(addMonths(at("2026-03-31T00:00:00.000Z"), -1), at("2026-02-28T00:00:00.000Z"));
    assert.deepEqual(addMonths(at("2026-05-10T00:00:00.000Z"), 0), at("2026-05-10T00:00:00.000Z"));
  });

  test("works in UTC whatever the local time zone, and does not mutate its input", () => {
    const d = at("2026-10-31T23:30:00.000Z"); // already Nov 1 east of UTC
    assert.deepEqual(addMonths(d, 1), at("2026-11-30T23:30:00.000Z"));
    assert.deepEqual(d, at("2026-10-31T23:30:00.000Z"));
  });
});
