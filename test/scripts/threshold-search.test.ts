import { describe, expect, it } from "vitest";
import { calibrateLevels, calibrateThreshold } from "../../scripts/lib/threshold-search.mjs";

/**
 * A detector whose sessions fire early at a rate that falls with each level:
 * the first instance's share and the carried instances' share add up (no
 * session fires early in both). The carried instances' later crossings are
 * slow past a level of 0.8 and fast below it.
 */
const firstRate = (first: number) => Math.max(0, 0.6 - 0.6 * first);
const laterRate = (later: number) => (later > 1 ? 0 : Math.max(0, 0.3 - 0.3 * later));
const rateAt = (first: number, later: number) => firstRate(first) + laterRate(later);
const laterMetAt = (_first: number, later: number) => later <= 0.8;
/** The first crossings are slow past a first level of 0.97. */
const firstMetAt = (first: number) => first <= 0.97;

describe("two levels that share one false-firing budget", () => {
  it("takes the middle of the first levels that meet both targets within the budget", () => {
    const result = calibrateLevels({
      rateAt,
      laterMetAt,
      firstMetAt,
      low: 0,
      high: 1,
      never: 2,
      step: 0.01,
      target: 0.1,
      tolerance: 0.001,
    });
    expect(result.bounded).toBe(false);
    // The rate stays within the budget, and the later crossings meet their target.
    expect(rateAt(result.first, result.later)).toBeLessThanOrEqual(0.1);
    expect(result.later).toBeLessThanOrEqual(0.8);
    // With the later level at 0.8 (rate 0.06) the first has 0.04 left (f ≥ 0.933), and its crossings meet theirs up to 0.97:
    // the run is four steps, 0.934–0.964, and its middle the second (0.944).
    expect(result.met.length).toBe(4);
    expect(result.first).toBeGreaterThan(0.94);
    expect(result.first).toBeLessThan(0.95);
    // One level for both would have had to hold both shares: the most sensitive within the budget is higher than either level.
    const one = calibrateThreshold({ rateAt: (level) => rateAt(level, level), low: 0, high: 1, target: 0.1, tolerance: 0.001 });
    expect(one.threshold).toBeGreaterThan(result.later);
    expect(laterMetAt(one.threshold, one.threshold)).toBe(false);
  });

  it("says so when no first level lets the later crossings meet their target", () => {
    const result = calibrateLevels({
      rateAt,
      laterMetAt: () => false,
      firstMetAt,
      low: 0,
      high: 1,
      never: 2,
      step: 0.05,
      target: 0.1,
      tolerance: 0.001,
    });
    expect(result.bounded).toBe(true);
    expect(result.met).toEqual([]);
    expect(rateAt(result.first, result.later)).toBeLessThanOrEqual(0.1);
  });

  it("steps past a first level that leaves the carried instances no level within the budget", () => {
    // At the first level alone allows (rate 0.1 with the carried never firing) any carried firing is over the budget.
    const withFloor = (first: number, later: number) => firstRate(first) + (later > 1 ? 0 : 0.01 + laterRate(later));
    const result = calibrateLevels({
      rateAt: withFloor,
      laterMetAt,
      firstMetAt: () => true,
      low: 0,
      high: 1,
      never: 2,
      step: 0.01,
      target: 0.1,
      tolerance: 0.001,
    });
    expect(result.bounded).toBe(false);
    expect(withFloor(result.first, result.later)).toBeLessThanOrEqual(0.1);
    expect(result.later).toBeLessThanOrEqual(0.8);
    // The first level alone would have been allowed 0.833; the floor leaves it 0.03: the run starts at 0.95.
    expect(result.met[0]?.first).toBeGreaterThan(0.95);
    expect(result.first).toBeGreaterThan(0.95);
  });
});
