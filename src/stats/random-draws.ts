/**
 * Random draws the learners share: Beta draws for Thompson sampling (retrieval
 * settings, routing affinities) and normal draws (the handoff's profiles). The
 * uniform source is passed in so that a seeded generator makes tests and
 * benchmarks reproducible; nothing here reads Math.random.
 */
export type Uniform = () => number;

/** A standard normal draw (Box–Muller); 1 − u keeps log away from 0. */
export function normalSample(random: Uniform): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * Gamma(shape, 1) by Marsaglia and Tsang (2000). Shapes below 1 use the
 * boost Gamma(a) = Gamma(a + 1) · U^(1/a), which the squeeze test needs.
 */
function gammaSample(shape: number, random: Uniform): number {
  if (!(shape > 0) || !Number.isFinite(shape)) throw new RangeError(`gamma shape must be positive and finite, got ${shape}`);
  if (shape < 1) return gammaSample(shape + 1, random) * (1 - random()) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normalSample(random);
    const t = 1 + c * x;
    if (t <= 0) continue;
    const v = t * t * t;
    const u = 1 - random();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** Beta(alpha, beta) as X / (X + Y) with X ~ Gamma(alpha), Y ~ Gamma(beta). */
export function betaSample(alpha: number, beta: number, random: Uniform): number {
  const x = gammaSample(alpha, random);
  const y = gammaSample(beta, random);
  // Both draws can underflow to 0 for tiny shapes; the mean is the honest answer then.
  return x + y > 0 ? x / (x + y) : alpha / (alpha + beta);
}

/** A small seeded generator (mulberry32): the same seed gives the same draws, in a replay as in the first run. */
export function seededUniform(seed: number): Uniform {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
