import { normalSample } from "../stats/random-draws.js";
import type { PreparedArmStatistics } from "./handoff-profile.js";

/** Thompson sampling explores while an arm has fewer results than this. */
const EXPLORE_BELOW = 3;

/**
 * The arm with the best posterior mean; while any arm of this (type, model)
 * has fewer than 3 results, a Thompson draw from each arm's posterior
 * instead, so every size gets tried before the profile settles.
 */
export function chooseArm(
  arms: ReadonlyArray<{ mean: number; sd: number }>,
  own: ReadonlyArray<PreparedArmStatistics>,
  k: number,
  random: (() => number) | undefined,
): number {
  const exploring = random !== undefined && own.some((arm) => arm.count < EXPLORE_BELOW);
  const score = arms.map((arm, index) => {
    if (!exploring) return arm.mean;
    const n = (own[index]?.count ?? 0) + k;
    return arm.mean + (arm.sd / Math.sqrt(n)) * normalSample(random);
  });
  // Ties (no data yet, no random) go to the middle size: neither the most nor the least context.
  const middle = Math.floor((score.length - 1) / 2);
  let best = middle;
  for (let index = 0; index < score.length; index++) if ((score[index] as number) > (score[best] as number)) best = index;
  return best;
}
