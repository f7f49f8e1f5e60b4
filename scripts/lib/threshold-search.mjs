// Choosing a detector's threshold for one false-firing rate, for
// scripts/bench-handoff.mjs: on the calibration seed only, then frozen.

/**
 * The most sensitive threshold whose false-firing rate is at most `target`,
 * by bisection between `low` (too sensitive: its rate is above the target)
 * and `high` (within it), on a scale where a larger value fires less:
 * `toThreshold` maps the scale to the detector's threshold (a probability
 * searched on its log-odds, a likelihood ratio on its logarithm). The rate
 * is a step function of the threshold (a session fires falsely or not), so
 * the search stops when the interval is narrower than `tolerance` and
 * returns its upper end, the one known to be within the target.
 * `rateAt(threshold)` runs the detector on the calibration sessions.
 */
export function calibrateThreshold({ rateAt, low, high, toThreshold = (value) => value, target = 0.05, tolerance = 0.02, maxSteps = 14 }) {
  const tried = [];
  const rate = (value) => {
    const threshold = toThreshold(value);
    const measured = rateAt(threshold);
    tried.push({ threshold, rate: measured });
    return measured;
  };
  if (rate(high) > target)
    throw new Error(`even the least sensitive threshold (${toThreshold(high)}) fires falsely in more than ${target * 100} % of sessions`);
  if (rate(low) <= target) return { threshold: toThreshold(low), tried, bounded: true };
  for (let step = 0; step < maxSteps && high - low > tolerance; step++) {
    const middle = (low + high) / 2;
    if (rate(middle) <= target) high = middle;
    else low = middle;
  }
  return { threshold: toThreshold(high), tried, bounded: false };
}

export const logit = (probability) => Math.log(probability / (1 - probability));
export const sigmoid = (value) => 1 / (1 + Math.exp(-value));
