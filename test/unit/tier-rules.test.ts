import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { addMonths, applyEarn, recalculate, tierForPoints, sortTiers, type TierState } from "@/lib/domain/tier-rules";

const tiers = [
  { id: "gold", requiredPoints: 5000, factor: 1.5 },
  { id: "bronze", requiredPoints: 0, factor: 1 },
  { id: "silver", requiredPoints: 1000, factor: 1.25 },
];
const start = new Date("2026-01-15T00:00:00.000Z");
const fresh = (): TierState => ({
  currentTierId: "bronze",
  carryTierId: null,
  currentTierPoints: 0,
  carryTierPoints: 0,
  tierChangedAt: start,
  recalculationDate: addMonths(start, 12),
  tierStatus: "base",
});

describe("tierForPoints", () => {
  test("is the highest tier the points reach", () => {
    const sorted = sortTiers(tiers);
    assert.equal(tierForPoints(sorted, 0)?.id, "bronze");
    assert.equal(tierForPoints(sorted, 999)?.id, "bronze");
    assert.equal(tierForPoints(sorted, 1000)?.id, "silver");
    assert.equal(tierForPoints(sorted, 10_000)?.id, "gold");
    assert.equal(tierForPoints([], 10), null);
  });
});

describe("applyEarn", () => {
  test("upgrades at once when a tier is reached, and says earned", () => {
    const now = new Date("2026-03-01T00:00:00.000Z");
    const s = applyEarn(fresh(), tiers, 1200, now);
    assert.equal(s.currentTierId, "silver");
    assert.equal(s.currentTierPoints, 1200);
    assert.equal(s.tierStatus, "earned");
    assert.equal(s.tierChangedAt, now);
  });

  test("below the next tier changes points only", () => {
    const s = applyEarn(fresh(), tiers, 500, new Date());
    assert.equal(s.currentTierId, "bronze");
    assert.equal(s.tierStatus, "base");
    assert.equal(s.tierChangedAt, start);
  });
});

describe("recalculate", () => {
  test("carries the period's points and tier; keeps the tier; status carried", () => {
    const earned = applyEarn(fresh(), tiers, 6000, new Date("2026-06-01T00:00:00.000Z"));
    const at = new Date("2027-01-15T00:00:00.000Z");
    const s = recalculate(earned, tiers, 12, at);
    assert.equal(s.carryTierId, "gold");
    assert.equal(s.carryTierPoints, 6000);
    assert.equal(s.currentTierPoints, 0);
    assert.equal(s.currentTierId, "gold");
    assert.equal(s.tierStatus, "carried");
    assert.equal(s.recalculationDate?.toISOString(), "2028-01-15T00:00:00.000Z");
  });

  test("does nothing before the recalculation date (no mid-period downgrade)", () => {
    const earned = applyEarn(fresh(), tiers, 6000, new Date("2026-06-01T00:00:00.000Z"));
    assert.deepEqual(recalculate(earned, tiers, 12, new Date("2027-01-14T23:59:59.999Z")), earned);
  });

  test("downgrades at recalculation to what the period earned", () => {
    let s = applyEarn(fresh(), tiers, 6000, new Date("2026-06-01T00:00:00.000Z"));
    s = recalculate(s, tiers, 12, new Date("2027-01-15T00:00:00.000Z"));
    s = applyEarn(s, tiers, 1500, new Date("2027-05-01T00:00:00.000Z"));
    assert.equal(s.currentTierId, "gold", "carried gold beats earned silver");
    assert.equal(s.tierStatus, "carried");
    s = recalculate(s, tiers, 12, new Date("2028-01-15T00:00:00.000Z"));
    assert.equal(s.currentTierId, "silver");
    assert.equal(s.carryTierId, "silver");
    assert.equal(s.carryTierPoints, 1500);
    assert.equal(s.tierStatus, "carried");
  });

  test("earning the carried tier again makes it earned", () => {
    let s = applyEarn(fresh(), tiers, 1000, new Date("2026-06-01T00:00:00.000Z"));
    s = recalculate(s, tiers, 12, new Date("2027-01-15T00:00:00.000Z"));
    assert.equal(s.tierStatus, "carried");
    s = applyEarn(s, tiers, 1000, new Date("2027-02-01T00:00:00.000Z"));
    assert.equal(s.currentTierId, "silver");
    assert.equal(s.tierStatus, "earned");
  });

  test("closes every missed period", () => {
    const s = recalculate(applyEarn(fresh(), tiers, 6000, start), tiers, 12, new Date("2029-02-01T00:00:00.000Z"));
    assert.equal(s.currentTierId, "bronze");
    assert.equal(s.carryTierPoints, 0);
    assert.equal(s.tierStatus, "base");
    assert.equal(s.recalculationDate?.toISOString(), "2030-01-15T00:00:00.000Z");
  });
});

describe("addMonths", () => {
  test("clamps to the end of shorter months", () => {
    assert.equal(addMonths(new Date("2026-01-31T10:00:00.000Z"), 1).toISOString(), "2026-02-28T10:00:00.000Z");
    assert.equal(addMonths(new Date("2028-01-31T10:00:00.000Z"), 1).toISOString(), "2028-02-29T10:00:00.000Z");
    assert.equal(addMonths(new Date("2026-11-22T15:31:33.000Z"), 12).toISOString(), "2027-11-22T15:31:33.000Z");
  });
});
