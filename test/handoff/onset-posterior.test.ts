import { describe, expect, it } from "vitest";
import { OnsetPosterior } from "../../src/handoff/onset-posterior.js";

const PRIOR = {
  onsetTokens: 60_000,
  onsetSdTokens: 9_000,
  neverShare: 0.2,
  peakQuality: 0.9,
  declineRatePerKiloToken: 0.01,
  noiseSd: 0.03,
  windowTokens: 200_000,
};

describe("OnsetPosterior", () => {
  it("is its prior before any observation: the onset's normal (with its even share), and 20 % on no onset", () => {
    const posterior = new OnsetPosterior(PRIOR);
    expect(posterior.probabilityDegradedBy(200)).toBeCloseTo(0.8, 10);
    // 85 % of the onset mass is the normal: half of it lies before the learned onset, plus the even share's part.
    expect(posterior.probabilityDegradedBy(60)).toBeCloseTo(0.8 * (0.85 * 0.5 + 0.15 * 0.3), 2);
    expect(posterior.plateau()).toBeCloseTo(0.9, 10);
    // Only the even share puts onsets this early.
    expect(posterior.mean(10)).toBeCloseTo(0.9, 3);
    // Past the learned onset the prior predicts the expected decline.
    expect(posterior.mean(100)).toBeLessThan(0.9 - 0.01 * 20);
  });

  it("learns the instance's level, and a long plateau moves the belief past it to no onset", () => {
    const posterior = new OnsetPosterior(PRIOR);
    for (let kilo = 8; kilo <= 150; kilo += 3) posterior.add(kilo, kilo % 2 === 0 ? 0.83 : 0.81);
    expect(posterior.plateau()).toBeCloseTo(0.82, 2);
    expect(posterior.probabilityDegradedBy(150)).toBeLessThan(0.05);
    expect(posterior.mean(153)).toBeGreaterThan(0.8);
  });

  it("locates a decline from the turns that show it", () => {
    const posterior = new OnsetPosterior(PRIOR);
    for (let kilo = 8; kilo <= 90; kilo += 3) posterior.add(kilo, kilo <= 50 ? 0.9 : 0.9 - 0.01 * (kilo - 50));
    expect(posterior.probabilityDegradedBy(45)).toBeLessThan(0.2);
    expect(posterior.probabilityDegradedBy(56)).toBeGreaterThan(0.8);
    expect(posterior.mean(95)).toBeCloseTo(0.9 - 0.01 * 45, 1);
  });
});
