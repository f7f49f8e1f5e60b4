// Choosing a detector's threshold for one false-firing rate, for
// scripts/bench-handoff.mjs: on the calibration seed only, then frozen.

/**
 * The most sensitive threshold whose false-firing rate is at most `target`,
 * and every threshold tried above it too, on a scale where a larger value
 * fires less: `toThreshold` maps the scale to the detector's threshold (a
 * probability searched on its log-odds, a likelihood ratio on its
 * logarithm). `high` must be within the target. The search steps down from
 * `high` by `tolerance` and stops at the first step over the target (or at
 * `low`), returning the step above it.
 *
 * Not a bisection: a bisection assumes the rate falls as the threshold
 * rises, and a learning detector's does not, step for step. Its firings
 * change what later sessions learn, so one threshold's sessions are not
 * another's: calibration seed 13 fired early in 3.3 % of its sessions at
 * 0.9263, 5.7 % at 0.9365 and 3.7 % at 0.9454. A bisection that tries
 * 0.9263 first never sees 0.9365, and takes a level below one that is
 * over; which it takes depends on the steps it visits. Stepping down from
 * the level known to be within takes none below a level over the target.
 * `rateAt(threshold)` runs the detector on the calibration sessions;
 * `value` is the threshold's place on the scale; `bounded`: `low` itself
 * was within the target (the scale's sensitive end, not the rate, ended
 * the search).
 */
export function calibrateThreshold({ rateAt, low, high, toThreshold = (value) => value, target = 0.05, tolerance = 0.02 }) {
  const tried = [];
  const rate = (value) => {
    const threshold = toThreshold(value);
    const measured = rateAt(threshold);
    tried.push({ threshold, rate: measured });
    return measured;
  };
  if (rate(high) > target)
    throw new Error(`even the least sensitive threshold (${toThreshold(high)}) fires falsely in more than ${target * 100} % of sessions`);
  let within = high;
  for (let step = 1; within > low; step++) {
    // Steps counted from `high`, not added up: the grid is the same whatever was tried before.
    const next = Math.max(low, high - step * tolerance);
    if (rate(next) > target) return { threshold: toThreshold(within), value: within, tried, bounded: false };
    within = next;
  }
  return { threshold: toThreshold(within), value: within, tried, bounded: true };
}

/**
 * Two levels that share one false-firing budget: a session's first
 * instance's and that of an instance carried over a handoff, which knows
 * the onset from the instances before it. One level for both spends the
 * budget where the carried instances fire early, and the first crossing
 * pays for it; a first level too sensitive leaves the carried instances
 * too little, and the later crossings pay.
 *
 * `rateAt(first, later)` is the largest false-firing rate among the
 * calibration seeds; `laterMetAt` and `firstMetAt(first, later)` say
 * whether the later and the first crossings meet their targets on every
 * one of them. The first level starts at the most sensitive one the budget
 * allows with carried instances that never fire (`never`), searched between
 * `firstLow` and `firstHigh` (default `low` and `high`), and steps by
 * `step` on the scale toward `high`; for each, the later level is the most
 * sensitive within the budget (`calibrateThreshold`) between the first
 * level and `laterHigh` (default `high`): a carried instance needs no less
 * evidence than a first one (the product gates a carried instance's curve
 * at the larger of the two levels). The pairs that meet
 * both targets form a run of first levels, from where the later crossings
 * first meet theirs to where the first crossings last meet theirs; the pair
 * returned is the middle of that run, the farthest from both edges (at an
 * edge, one target is met by a turn on the calibration seeds and missed on
 * others). `bounded`: no pair met both, and the pair is the first that met
 * the later target (or the last tried).
 */
export function calibrateLevels({
  rateAt,
  laterMetAt,
  firstMetAt,
  low,
  high,
  never,
  step,
  firstLow = low,
  firstHigh = high,
  laterHigh = high,
  toThreshold = (value) => value,
  target = 0.05,
  tolerance = 0.02,
}) {
  const alone = calibrateThreshold({
    rateAt: (first) => rateAt(first, never),
    low: firstLow,
    high: firstHigh,
    toThreshold,
    target,
    tolerance,
  });
  const tried = alone.tried.map(({ threshold, rate }) => ({ first: threshold, later: never, rate }));
  const met = [];
  let laterFirstMet;
  let last;
  for (let first = alone.value; first <= high; first += step) {
    const firstLevel = toThreshold(first);
    const rateWithFirst = (level) => {
      const rate = rateAt(firstLevel, level);
      tried.push({ first: firstLevel, later: level, rate });
      return rate;
    };
    let later;
    try {
      later = calibrateThreshold({ rateAt: rateWithFirst, low: first, high: laterHigh, toThreshold, target, tolerance });
    } catch {
      // Even the least sensitive later level leaves this first level over the budget: a less sensitive first level.
      continue;
    }
    last = { first: firstLevel, later: later.threshold };
    if (!laterMetAt(last.first, last.later)) continue;
    laterFirstMet ??= last;
    // Past the run: the first crossings no longer meet theirs, and only get slower with the first level.
    if (!firstMetAt(last.first, last.later)) break;
    met.push(last);
  }
  if (met.length > 0) return { ...met[Math.floor((met.length - 1) / 2)], met, tried, bounded: false };
  return { ...(laterFirstMet ?? last), met, tried, bounded: true };
}

export const logit = (probability) => Math.log(probability / (1 - probability));
export const sigmoid = (value) => 1 / (1 + Math.exp(-value));
