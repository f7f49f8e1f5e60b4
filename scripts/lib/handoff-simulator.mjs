// A seeded world of agent sessions whose true quality follows
// plateau-then-decline curves in the context size, for scripts/bench-handoff.mjs.
//
// What it assumes, and why:
// - Onsets well below the advertised window. RULER (Hsieh et al. 2024,
//   "RULER: What's the Real Context Size of Your Long-Context Language
//   Models?") finds most models' effective length at half their claimed
//   window or less; Chroma's "Context Rot" report (Hong, Troynikov, Huber
//   2025) measures 18 models losing accuracy steadily as input grows, long
//   before the limit. So each model's onset is drawn at 10–40 % of a 200k
//   window, each agent type shifts it by ±15 %, each session by ~10 %
//   (log-normal), and it drifts slowly (±15 % over the run) as tasks and
//   model versions change.
// - After the onset quality falls linearly, 0.6–3 % of the plateau per 1,000
//   tokens (log-uniform: gradual for some models, a near cliff for others).
// - A share of sessions never degrades (short, focused tasks).
// - Context grows per turn by a log-normal amount (median 3,000 tokens, the
//   size of a file read or a test run).
// - A turn's observed quality is the true quality plus noise (sd 0.03–0.07
//   per model), clipped to [0, 1], and 4 % of turns are outliers at 10–50 %
//   of the true quality (a failed tool call has many causes besides context).
// - A handoff starts a new instance at the prepared size; its first two
//   turns pay for the context it no longer has (lost detail), more when the
//   prepared context is small: a premature handoff costs quality.

/** The product's own seeded generator (`seededUniform`), from dist like every script's imports. */
export const mulberry32 = (await import(new URL("../../dist/src/stats/random-draws.js", import.meta.url).href)).seededUniform;

export function gaussian(random) {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

export const WINDOW = 200_000;
export const BASE_CONTEXT = 8_000; // system prompt, tool definitions, the first prompt
export const AGENT_TYPES = ["engineer", "designer", "inspector"];
export const MODELS = ["model-a", "model-b", "model-c", "model-d"];
const NEVER_DEGRADES = 0.15;
const OUTLIER_RATE = 0.04;
const HANDOFF_COST = 0.12;

/** The world: per-model curves, per-type shifts, per-pair drift. */
export function makeWorld(seed) {
  const random = mulberry32(seed);
  const models = Object.fromEntries(
    MODELS.map((model) => [
      model,
      {
        onset: WINDOW * (0.1 + 0.3 * random()),
        peak: 0.85 + 0.1 * random(),
        declineShare: Math.exp(Math.log(0.006) + (Math.log(0.03) - Math.log(0.006)) * random()),
        noise: 0.03 + 0.04 * random(),
      },
    ]),
  );
  const typeShift = Object.fromEntries(AGENT_TYPES.map((type) => [type, 0.85 + 0.3 * random()]));
  const drift = {};
  for (const type of AGENT_TYPES) for (const model of MODELS) drift[`${type}/${model}`] = (random() * 2 - 1) * 0.15;
  return { models, typeShift, drift };
}

/** The pair's mean onset at `progress` (0 at the run's start, 1 at its end). */
export function expectedOnset(world, type, model, progress) {
  return world.models[model].onset * world.typeShift[type] * (1 + world.drift[`${type}/${model}`] * progress);
}

/** One session, every random draw made up front so each policy meets the same turns. */
export function makeSession(world, random, type, model, progress) {
  const curve = world.models[model];
  const degrades = random() >= NEVER_DEGRADES;
  const onset = degrades ? expectedOnset(world, type, model, progress) * Math.exp(0.1 * gaussian(random)) : Number.POSITIVE_INFINITY;
  const turns = 30 + Math.floor(random() * 90);
  const growth = [];
  const noise = [];
  const outlier = [];
  for (let turn = 0; turn < turns; turn++) {
    growth.push(Math.round(3000 * Math.exp(0.5 * gaussian(random))));
    noise.push(gaussian(random) * curve.noise);
    outlier.push(random() < OUTLIER_RATE ? 0.1 + 0.4 * random() : 1);
  }
  const meanOnset = expectedOnset(world, type, model, progress);
  return {
    type,
    model,
    onset,
    meanOnset,
    degrades,
    turns,
    growth,
    noise,
    outlier,
    peak: curve.peak,
    noiseSd: curve.noise,
    declinePerKilo: curve.declineShare * curve.peak,
  };
}

export function trueQuality(session, contextTokens) {
  if (contextTokens <= session.onset) return session.peak;
  return Math.max(0, session.peak - (session.declinePerKilo * (contextTokens - session.onset)) / 1000);
}

/** The lost-context cost of an instance's first turns after a handoff: up to 0.12 at its first turn, half at its second, less with more prepared context. */
export function handoffCost(session, preparedTokens, instanceTurn) {
  if (instanceTurn > 1) return 0;
  const reference = Number.isFinite(session.onset) ? session.onset : 0.2 * WINDOW;
  const share = Math.min(1, preparedTokens / (0.5 * reference));
  return (HANDOFF_COST * (1 - 0.6 * share)) / (instanceTurn + 1);
}

/**
 * Runs one session under a policy: before each model call
 * policy.decide(contextTokens) → { kind: "handoff", preparedTokens } |
 * { kind: "evict", toTokens } | undefined; policy.observe(contextTokens,
 * observedQuality) after the turn; policy.finish() at the end. Returns one
 * record per turn: the context at the decision, the action, the context the
 * call ran with and its true quality.
 */
export function runSession(session, policy) {
  policy.start(session);
  let context = BASE_CONTEXT;
  let instanceTurn = 0;
  let preparedTokens; // undefined for the first instance: nothing was lost
  const records = [];
  for (let turn = 0; turn < session.turns; turn++) {
    const decidedAt = context;
    const action = policy.decide(context);
    if (action?.kind === "handoff") {
      preparedTokens = action.preparedTokens;
      context = BASE_CONTEXT + preparedTokens;
      instanceTurn = 0;
    } else if (action?.kind === "evict") {
      context = action.toTokens;
    }
    const cost = preparedTokens === undefined ? 0 : handoffCost(session, preparedTokens, instanceTurn);
    const quality = Math.max(0, trueQuality(session, context) - cost);
    const observed = Math.min(1, Math.max(0, quality * session.outlier[turn] + session.noise[turn]));
    records.push({ turn, decidedAt, action: action?.kind, context, quality });
    policy.observe(context, observed);
    context += session.growth[turn];
    instanceTurn++;
  }
  policy.finish();
  return records;
}

/** The window stays a hard bound: every policy evicts at 75 % down to 50 % as its safety net. */
export function safetyNet(contextTokens) {
  return contextTokens > 0.75 * WINDOW ? { kind: "evict", toTokens: 0.5 * WINDOW } : undefined;
}

export function tokenPolicy() {
  return { start() {}, decide: (context) => safetyNet(context), observe() {}, finish() {} };
}

/** Hands off at 75 % of the window to the design's default prepared size (25 % of the default onset, 60 % of the window). */
export function fixedThresholdPolicy() {
  return {
    start() {},
    decide: (context) => (context >= 0.75 * WINDOW ? { kind: "handoff", preparedTokens: 0.25 * 0.6 * WINDOW } : undefined),
    observe() {},
    finish() {},
  };
}

/** Knows each session's true onset: hands off the moment the context reaches it, to 25 % of it. */
export function oraclePolicy() {
  let session;
  return {
    start(s) {
      session = s;
    },
    decide: (context) => (context >= session.onset ? { kind: "handoff", preparedTokens: 0.25 * session.onset } : safetyNet(context)),
    observe() {},
    finish() {},
  };
}

/**
 * The log-likelihood of one observation when the true quality is
 * `expected`, as the simulator makes it: the noise, and the outlier process
 * (uniform over 10–50 % of the true quality, widened by the noise). The
 * detectors that know everything but the onset share it.
 */
export function observationLogLikelihood(session, expected, observed) {
  const sd = session.noiseSd;
  const inlier = ((1 - OUTLIER_RATE) * Math.exp(-0.5 * ((observed - expected) / sd) ** 2)) / (sd * Math.sqrt(2 * Math.PI));
  const low = 0.1 * expected - 2 * sd;
  const high = 0.5 * expected + 2 * sd;
  const outlier = observed >= low && observed <= high ? OUTLIER_RATE / (high - low) : 0;
  return Math.log(inlier + outlier + 1e-300);
}

/** The plateau-then-decline curve of a session with its onset at `onset` (tokens). */
export function qualityWithOnset(session, onset, contextTokens) {
  return Math.max(0, session.peak - (session.declinePerKilo * Math.max(0, contextTokens - onset)) / 1000);
}

/**
 * The information limit: a Bayes detector that knows everything about the
 * session except its onset (the pair's mean onset at this point of the run,
 * the 10 % log-normal spread around it, the share that never degrades, the
 * plateau, the decline rate, the noise, the outlier process and what a
 * handoff costs) and hands off when the posterior probability that the
 * decline has begun reaches `evidence`. No learned controller can beat it on
 * the same sessions; how far it gets within a given false-firing rate says
 * what a target asks of the data.
 *
 * `memory: false` starts each instance from the prior, as the controller
 * did before it carried the onset posterior over a handoff; `memory: true`
 * keeps the posterior across handoffs: the session's onset is the same for
 * every instance, and what the previous one saw of it still holds.
 */
export function bayesPolicy(evidence, { memory = false, laterEvidence = evidence } = {}) {
  const ONSETS = 400;
  const SPREAD = 4; // the grid covers ±4 sd of the log-onset
  let session;
  let onsets;
  let logWeights;
  let instanceTurn;
  let handedOff;
  const startFromPrior = () => {
    onsets = [];
    logWeights = [];
    for (let index = 0; index < ONSETS; index++) {
      const z = -SPREAD + (2 * SPREAD * (index + 0.5)) / ONSETS;
      onsets.push(session.meanOnset * Math.exp(0.1 * z));
      logWeights.push(-0.5 * z * z + Math.log(((1 - NEVER_DEGRADES) * (2 * SPREAD)) / ONSETS / Math.sqrt(2 * Math.PI)));
    }
    onsets.push(Number.POSITIVE_INFINITY);
    logWeights.push(Math.log(NEVER_DEGRADES));
  };
  return {
    start(s) {
      session = s;
      handedOff = false;
      instanceTurn = 0;
      startFromPrior();
    },
    decide(context) {
      // At the current size: with the onset known to a turn, a lookahead would hand off the turn
      // before it, which the benchmark counts as early.
      const top = Math.max(...logWeights);
      let total = 0;
      let degraded = 0;
      logWeights.forEach((logWeight, index) => {
        const weight = Math.exp(logWeight - top);
        total += weight;
        if (onsets[index] <= context) degraded += weight;
      });
      if (degraded / total >= (handedOff ? laterEvidence : evidence)) {
        handedOff = true;
        instanceTurn = 0;
        if (!memory) startFromPrior();
        return { kind: "handoff", preparedTokens: 0.25 * session.meanOnset };
      }
      return safetyNet(context);
    },
    observe(context, observed) {
      // It knows what a handoff costs in the first two turns, and leaves them out.
      if (instanceTurn++ < 2 && handedOff) return;
      logWeights.forEach((logWeight, index) => {
        logWeights[index] = logWeight + observationLogLikelihood(session, qualityWithOnset(session, onsets[index], context), observed);
      });
    },
    finish() {},
  };
}
