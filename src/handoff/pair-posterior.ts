import { normalSample } from "../stats/random-draws.js";

/**
 * What a (agent type, model) pair's sessions say about its degradation curve, as a particle posterior over the
 * model family's seven parameters (docs/DESIGN-NOTES.md, "The pair's learner"). Each particle is one curve family:
 * [log mean onset (tokens), its drift (log mean per 100 of the pair's sessions), log spread of a session's onset about
 * that mean, plateau, log decline rate per 1,000 tokens, noise sd, share of sessions that never degrade]. A session's
 * likelihood under a particle is marginalised over the session's own onset (`ONSET_CELLS` cells over ±4 spreads) and
 * "never", with the robust observation model (`turnLogLikelihood`). Plain JSON: it is stored in the profile's row.
 */

/**
 * Off: no levels pair passed the levels' rule on 10-19 with the pair's learner (whether the profile carries it; docs/BENCHMARKS.md, "The pair's learner in
 * the product"), and its prior box leaves out a model that fails at 5 % of the window (the end-to-end tests).
 */
export const PAIR_LEARNER = false;

export const PARTICLES = 400;
/** The sessions a move step re-reads: the newest this many (older ones stay in the particles they shaped). */
export const RETAINED_SESSIONS = 64;
/** A session's turns kept for the moves: its first this many by size. */
export const MAX_SESSION_TURNS = 256;
/** A session's onset is integrated over this many cells, evenly over ±4 of the particle's spreads (in log). */
export const ONSET_CELLS = 48;
/** Random-walk Metropolis steps per particle after a resample. */
const MOVES = 4;
/** Share of turns that fail for reasons of their own (a tool error, a bad read), scoring 10–50 % of the curve. */
export const FAILED_TURN_RATE = 0.04;
const LOG_ROOT_2PI = 0.5 * Math.log(2 * Math.PI);

/** The prior: uniform on each coordinate over this box (onsets as shares of the window, set per window). */
const BOX: ReadonlyArray<readonly [number, number]> = [
  [0.085, 0.46], // mean onset, share of the window (log-uniform)
  [-0.8, 0.8], // drift of the log mean per 100 sessions
  [Math.log(0.03), Math.log(0.3)], // log spread
  [0.85, 0.95], // plateau
  [Math.log(0.0051), Math.log(0.0285)], // log decline per 1,000 tokens
  [0.03, 0.07], // noise sd
  [0, 0.5], // never degrades
];
const DIMENSIONS = BOX.length;

export interface SessionTurns {
  /** Context sizes (tokens), increasing, and the quality observed at each. */
  tokens: number[];
  quality: number[];
  /** How many of the pair's sessions had ended when this one started (the drift's clock). */
  index: number;
  windowTokens: number;
}

export interface PairPosteriorState {
  version: 1;
  windowTokens: number;
  particles: number[][];
  logWeights: number[];
  /** Σ over the retained sessions of each particle's log-likelihood (what a move compares). */
  logLikelihoods: number[];
  /** Sessions learned. */
  sessions: number;
  /** The generator's state (mulberry32), so a move is reproducible. */
  random: number;
  retained: SessionTurns[];
}

/** The box in the particles' coordinates for a window. */
function boxOf(windowTokens: number): Array<[number, number]> {
  return BOX.map(([low, high], dimension) =>
    dimension === 0 ? [Math.log(low * windowTokens), Math.log(high * windowTokens)] : [low, high],
  );
}

/** mulberry32 on a stored state. */
function generator(state: { random: number }): () => number {
  return () => {
    state.random = (state.random + 0x6d2b79f5) >>> 0;
    let t = state.random;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The prior's particles for a window, drawn with a fixed seed: a profile read twice starts from the same set. */
export function priorPairPosterior(windowTokens: number, seed = 27): PairPosteriorState {
  const state = { random: seed >>> 0 };
  const random = generator(state);
  const box = boxOf(windowTokens);
  const particles = Array.from({ length: PARTICLES }, () => box.map(([low, high]) => low + (high - low) * random()));
  return {
    version: 1,
    windowTokens,
    particles,
    logWeights: new Array<number>(PARTICLES).fill(-Math.log(PARTICLES)),
    logLikelihoods: new Array<number>(PARTICLES).fill(0),
    sessions: 0,
    random: state.random,
    retained: [],
  };
}

/** log p(observed | expected): Gaussian noise, or with `FAILED_TURN_RATE` a failed turn uniform over 10–50 % of it (± 2 sds). */
export function turnLogLikelihood(sd: number, expected: number, observed: number): number {
  const z = (observed - expected) / sd;
  const inlier = ((1 - FAILED_TURN_RATE) * Math.exp(-0.5 * z * z - LOG_ROOT_2PI)) / sd;
  const low = 0.1 * expected - 2 * sd;
  const high = 0.5 * expected + 2 * sd;
  const failed = observed >= low && observed <= high ? FAILED_TURN_RATE / (high - low) : 0;
  return Math.log(inlier + failed + 1e-300);
}

/** The standard normal points of the onset cells, and each cell's log prior mass. */
export const CELL_Z = Float64Array.from({ length: ONSET_CELLS }, (_, cell) => -4 + (8 * (cell + 0.5)) / ONSET_CELLS);
export const CELL_LOG_MASS = Float64Array.from(CELL_Z, (z) => -0.5 * z * z - LOG_ROOT_2PI + Math.log(8 / ONSET_CELLS));

/** The pair's mean onset (tokens) under a particle when `index` sessions have ended. */
export function meanOnsetOf(particle: readonly number[], index: number): number {
  return Math.exp((particle[0] as number) + ((particle[1] as number) * index) / 100);
}

/** The onset of each cell under a particle. */
export function cellOnsets(particle: readonly number[], index: number, into = new Float64Array(ONSET_CELLS)): Float64Array {
  const mean = meanOnsetOf(particle, index);
  const spread = Math.exp(particle[2] as number);
  for (let cell = 0; cell < ONSET_CELLS; cell++) into[cell] = mean * Math.exp(spread * (CELL_Z[cell] as number));
  return into;
}

/** One session's log-likelihood under a particle, its onset and "never" integrated out (its turns in increasing size). */
export function sessionLogLikelihood(particle: readonly number[], session: SessionTurns): number {
  const peak = particle[3] as number;
  const rate = Math.exp(particle[4] as number) / 1000;
  const sd = particle[5] as number;
  const never = particle[6] as number;
  const turns = session.tokens.length;
  const flat = new Float64Array(turns + 1);
  for (let t = 0; t < turns; t++) flat[t + 1] = (flat[t] as number) + turnLogLikelihood(sd, peak, session.quality[t] as number);
  const onsets = cellOnsets(particle, session.index);
  const terms = new Float64Array(ONSET_CELLS + 1);
  const logDegrades = Math.log(1 - never + 1e-300);
  let first = 0;
  for (let cell = 0; cell < ONSET_CELLS; cell++) {
    const onset = onsets[cell] as number;
    while (first < turns && (session.tokens[first] as number) <= onset) first++;
    let sum = flat[first] as number;
    for (let t = first; t < turns; t++) {
      const expected = Math.max(0, peak - rate * ((session.tokens[t] as number) - onset));
      sum += turnLogLikelihood(sd, expected, session.quality[t] as number);
    }
    terms[cell] = logDegrades + (CELL_LOG_MASS[cell] as number) + sum;
  }
  terms[ONSET_CELLS] = Math.log(never + 1e-300) + (flat[turns] as number);
  return logSumExp(terms);
}

function logSumExp(logs: ArrayLike<number>): number {
  let top = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < logs.length; index++) top = Math.max(top, logs[index] as number);
  if (top === Number.NEGATIVE_INFINITY) return top;
  let total = 0;
  for (let index = 0; index < logs.length; index++) total += Math.exp((logs[index] as number) - top);
  return top + Math.log(total);
}

/** The weights normalised in log (Σ exp = 1). */
function normalise(logWeights: number[]): void {
  const total = logSumExp(logWeights);
  for (let j = 0; j < logWeights.length; j++) logWeights[j] = (logWeights[j] as number) - total;
}

/** The effective sample size of the weights: 1 / Σ w². */
export function effectiveSampleSize(state: PairPosteriorState): number {
  let squares = 0;
  for (const logWeight of state.logWeights) squares += Math.exp(2 * logWeight);
  return 1 / squares;
}

/** A session's turns as the pair keeps them: increasing in size, at most `MAX_SESSION_TURNS`. */
export function sessionTurnsOf(turns: ReadonlyArray<readonly [number, number]>, index: number, windowTokens: number): SessionTurns {
  const sorted = [...turns].sort((a, b) => a[0] - b[0]).slice(0, MAX_SESSION_TURNS);
  return { tokens: sorted.map((turn) => turn[0]), quality: sorted.map((turn) => turn[1]), index, windowTokens };
}

const copyOf = (state: PairPosteriorState): PairPosteriorState => ({
  ...state,
  particles: [...state.particles],
  logWeights: [...state.logWeights],
  logLikelihoods: [...state.logLikelihoods],
  retained: [...state.retained],
});

/**
 * The posterior with one more session: each weight times the session's likelihood; when the effective sample size
 * falls under half, resampled and moved. The session beyond the newest `RETAINED_SESSIONS` is dropped from the moves'
 * likelihood.
 */
export function learnSession(posterior: PairPosteriorState, session: SessionTurns): PairPosteriorState {
  const state = copyOf(posterior);
  if (session.tokens.length === 0) return state;
  for (let j = 0; j < state.particles.length; j++) {
    const logLikelihood = sessionLogLikelihood(state.particles[j] as number[], session);
    state.logWeights[j] = (state.logWeights[j] as number) + logLikelihood;
    state.logLikelihoods[j] = (state.logLikelihoods[j] as number) + logLikelihood;
  }
  normalise(state.logWeights);
  state.retained.push(session);
  state.sessions++;
  while (state.retained.length > RETAINED_SESSIONS) {
    const dropped = state.retained.shift() as SessionTurns;
    for (let j = 0; j < state.particles.length; j++)
      state.logLikelihoods[j] = (state.logLikelihoods[j] as number) - sessionLogLikelihood(state.particles[j] as number[], dropped);
  }
  if (effectiveSampleSize(state) < state.particles.length / 2) resampleMove(state);
  return state;
}

/** The posterior without a session it learned (a resumed session that ends again): its likelihood divided back out. */
export function unlearnSession(posterior: PairPosteriorState, session: SessionTurns): PairPosteriorState {
  const same = (other: SessionTurns) =>
    other.index === session.index &&
    other.tokens.length === session.tokens.length &&
    other.tokens.every((tokens, t) => tokens === session.tokens[t] && other.quality[t] === session.quality[t]);
  const at = posterior.retained.findIndex(same);
  if (at < 0) return posterior;
  const state = copyOf(posterior);
  state.retained.splice(at, 1);
  for (let j = 0; j < state.particles.length; j++) {
    const logLikelihood = sessionLogLikelihood(state.particles[j] as number[], session);
    state.logWeights[j] = (state.logWeights[j] as number) - logLikelihood;
    state.logLikelihoods[j] = (state.logLikelihoods[j] as number) - logLikelihood;
  }
  normalise(state.logWeights);
  state.sessions = Math.max(0, state.sessions - 1);
  return state;
}

/** Systematic resampling, then `MOVES` random-walk Metropolis steps per particle on the retained sessions' likelihood. */
function resampleMove(state: PairPosteriorState): void {
  const random = generator(state);
  const count = state.particles.length;
  const weights = state.logWeights.map(Math.exp);
  const particles: number[][] = [];
  const likelihoods: number[] = [];
  let cumulative = weights[0] as number;
  let source = 0;
  const start = random() / count;
  for (let j = 0; j < count; j++) {
    const u = start + j / count;
    while (u > cumulative && source < count - 1) cumulative += weights[++source] as number;
    particles.push(state.particles[source] as number[]);
    likelihoods.push(state.logLikelihoods[source] as number);
  }
  const box = boxOf(state.windowTokens);
  const step = stepsOf(particles, box);
  for (let j = 0; j < count; j++) {
    for (let move = 0; move < MOVES; move++) {
      const proposal = (particles[j] as number[]).map((value, dimension) => value + (step[dimension] as number) * normalSample(random));
      if (
        !proposal.every(
          (value, dimension) => value >= (box[dimension] as [number, number])[0] && value <= (box[dimension] as [number, number])[1],
        )
      )
        continue;
      let logLikelihood = 0;
      for (const session of state.retained) logLikelihood += sessionLogLikelihood(proposal, session);
      if (Math.log(random()) < logLikelihood - (likelihoods[j] as number)) {
        particles[j] = proposal;
        likelihoods[j] = logLikelihood;
      }
    }
  }
  state.particles = particles;
  state.logLikelihoods = likelihoods;
  state.logWeights = new Array<number>(count).fill(-Math.log(count));
}

/** Each coordinate's random-walk step: half the optimal scale (2.38/√d) times the set's sd, at least 0.1 % of the box. */
function stepsOf(particles: number[][], box: Array<[number, number]>): number[] {
  return box.map(([low, high], dimension) => {
    let mean = 0;
    for (const particle of particles) mean += (particle[dimension] as number) / particles.length;
    let variance = 0;
    for (const particle of particles) variance += ((particle[dimension] as number) - mean) ** 2 / particles.length;
    return Math.max(Math.sqrt(variance), 1e-3 * (high - low)) * (2.38 / Math.sqrt(DIMENSIONS)) * 0.5;
  });
}

/** The posterior means the profile states, at the pair's next session. */
export interface PairMeans {
  onsetTokens: number;
  onsetSdTokens: number;
  peakQuality: number;
  declineRatePerKiloToken: number;
  noiseSd: number;
  neverShare: number;
}

export function pairMeans(state: PairPosteriorState): PairMeans {
  const means = { onsetTokens: 0, onsetSdTokens: 0, peakQuality: 0, declineRatePerKiloToken: 0, noiseSd: 0, neverShare: 0 };
  state.particles.forEach((particle, j) => {
    const weight = Math.exp(state.logWeights[j] as number);
    const onset = meanOnsetOf(particle, state.sessions);
    means.onsetTokens += weight * onset;
    means.onsetSdTokens += weight * onset * Math.exp(particle[2] as number);
    means.peakQuality += weight * (particle[3] as number);
    means.declineRatePerKiloToken += weight * Math.exp(particle[4] as number);
    means.noiseSd += weight * (particle[5] as number);
    means.neverShare += weight * (particle[6] as number);
  });
  return means;
}
