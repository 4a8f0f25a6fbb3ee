/**
 * The customer page's progress to the next tier (lib/domain/tier-progress.ts), by example: which tier is next,
 * the points still missing and the whole percent shown on the bar.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { tierProgress } from "@/lib/domain/tier-progress";

// Sorted as the dashboard loads them (requiredPoints ascending), except where a test says otherwise.
const BRONZE = { id: "bronze", name: "Bronze", requiredPoints: 0 };
const SILVER = { id: "silver", name: "Silver", requiredPoints: 1000 };
const GOLD = { id: "gold", name: "Gold", requiredPoints: 5000 };
const TIERS = [BRONZE, SILVER, GOLD];

describe("tierProgress", () => {
  test("the next tier is the lowest one above the current tier, with the points missing and the percent reached", () => {
    assert.deepEqual(tierProgress(TIERS, "bronze", 250), { next: SILVER, remaining: 750, percent: 25 });
  });

  test("the percent is rounded down, so the bar never shows a tier as reached before it is", () => {
    assert.equal(tierProgress(TIERS, "bronze", 999).percent, 99);
    assert.equal(tierProgress(TIERS, "silver", 4999).percent, 99);
  });

  test("exactly at a threshold, that tier is reached and the one after it is next", () => {
    assert.deepEqual(tierProgress(TIERS, "silver", 1000), { next: GOLD, remaining: 4000, percent: 20 });
  });

  test("points past a threshold the current tier does not show yet skip that tier", () => {
    assert.deepEqual(tierProgress(TIERS, "bronze", 1200), { next: GOLD, remaining: 3800, percent: 24 });
  });

  test("a carried tier above the points: next is the tier above the carried one", () => {
    assert.deepEqual(tierProgress(TIERS, "silver", 10), { next: GOLD, remaining: 4990, percent: 0 });
  });

  test("at the top tier there is no next tier and the bar is full", () => {
    assert.deepEqual(tierProgress(TIERS, "gold", 5000), { next: null, remaining: 0, percent: 100 });
  });

  test("above the top tier's threshold the bar stays full", () => {
    assert.deepEqual(tierProgress(TIERS, "gold", 12_345), { next: null, remaining: 0, percent: 100 });
  });

  test("a program without tiers has no next tier", () => {
    assert.deepEqual(tierProgress([], null, 300), { next: null, remaining: 0, percent: 100 });
  });

  test("a tierless customer heads for the lowest tier above the points; a zero threshold is already reached", () => {
    assert.deepEqual(tierProgress(TIERS, null, 0), { next: SILVER, remaining: 1000, percent: 0 });
  });

  test("a zero threshold as next (negative points) neither divides by zero nor leaves the 0–100 range", () => {
    assert.deepEqual(tierProgress([BRONZE], null, -5), { next: BRONZE, remaining: 5, percent: 0 });
  });

  test("tiers out of order give the same next tier", () => {
    assert.deepEqual(tierProgress([GOLD, SILVER, BRONZE], "bronze", 250), {
      next: SILVER,
      remaining: 750,
      percent: 25,
    });
  });

  test("an unknown current tier counts as no tier", () => {
    assert.deepEqual(tierProgress(TIERS, "deleted", 250), { next: SILVER, remaining: 750, percent: 25 });
  });
});
