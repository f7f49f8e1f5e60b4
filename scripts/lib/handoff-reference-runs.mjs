// The learning reference run over one seed's simulated sessions, for scripts/bench-handoff-reference.mjs: the replay
// mode (each session's first instance on its no-firing path, the posterior predictive recorded at every decision, so any
// level is read from one run) and the live mode (every instance fires through the bench's runPolicy). The posterior
// itself: scripts/lib/handoff-learning-reference.mjs.
import { runPolicy, sessionsOf } from "./handoff-outcomes.mjs";
import { BASE_CONTEXT, WINDOW, gaussian, mulberry32, oraclePolicy, safetyNet, trueQuality } from "./handoff-simulator.mjs";
import {
  GRID_LOG_MASS,
  GRID_POINTS,
  createPosterior,
  observationLogLikelihood,
  observeCells,
  onsetsOf,
  parameterBox,
  posteriorSummary,
  predictive,
  sessionCells,
} from "./handoff-learning-reference.mjs";

/** The first instance decides from its fourth turn (t >= 3), as m-onset23's trace. */
const FIRST_DECISION = 3;

/** The seed's sessions and a posterior drawn from the seed's own stream (the scratch driver's seeding, kept). */
function setUp(seed, sessions, particles) {
  const random = mulberry32(seed * 31_337 + 26);
  return { sessions: sessionsOf(seed, sessions), posterior: createPosterior({ particles, random, gaussian, box: parameterBox(WINDOW) }) };
}

/** A session's first instance on its no-firing path: the contexts it decides at and the qualities it observes. */
export function firstInstancePath(session) {
  const xs = [];
  const ys = [];
  let context = BASE_CONTEXT;
  for (let t = 0; t < session.turns; t++) {
    if (safetyNet(context)) break;
    xs.push(context);
    const q = trueQuality(session, context);
    ys.push(Math.min(1, Math.max(0, q * session.outlier[t] + session.noise[t])));
    context += session.growth[t];
  }
  return { xs, ys };
}

/** The gates (P(onset ≤ x), 5 decimals; null before the first decision) along a path, updating `cells` by each turn. */
function gatesAlong(cells, xs, ys, level) {
  const gates = [];
  let fired = -1;
  for (let t = 0; t < xs.length; t++) {
    if (t >= FIRST_DECISION) {
      const { p } = predictive(cells, xs[t]);
      gates.push(+p.toFixed(5));
      if (fired < 0 && p >= level) fired = t;
    } else gates.push(null);
    observeCells(cells, xs[t], ys[t]);
  }
  return { gates, fired };
}

/** The control: the same Bayes with the simulator's true parameters (spread 0.1, never 0.15), on the same path and grid. */
export function fullKnowledgeGates(session, xs, ys) {
  const s = session;
  const onsets = onsetsOf([Math.log(s.meanOnset), 0, Math.log(0.1), s.peak, Math.log(s.declinePerKilo), s.noiseSd, 0.15], 0);
  const lw = new Float64Array(GRID_POINTS + 1);
  for (let g = 0; g < GRID_POINTS; g++) lw[g] = Math.log(0.85) + GRID_LOG_MASS[g];
  lw[GRID_POINTS] = Math.log(0.15);
  const known = [];
  for (let t = 0; t < xs.length; t++) {
    if (t >= FIRST_DECISION) {
      const top = Math.max(...lw);
      let total = 0;
      let degraded = 0;
      for (let g = 0; g <= GRID_POINTS; g++) {
        const w = Math.exp(lw[g] - top);
        total += w;
        if (g < GRID_POINTS && onsets[g] <= xs[t]) degraded += w;
      }
      known.push(+(degraded / total).toFixed(5));
    } else known.push(null);
    for (let g = 0; g <= GRID_POINTS; g++) {
      const expected = g < GRID_POINTS ? Math.max(0, s.peak - (s.declinePerKilo / 1000) * Math.max(0, xs[t] - onsets[g])) : s.peak;
      lw[g] += observationLogLikelihood(s.noiseSd, expected, ys[t]);
    }
  }
  return known;
}

/**
 * Replay mode: per session (in order) one row with its truth, the pair's posterior summary before it, its first
 * instance's path and gates, and the full-knowledge gates. What the pair learns from a session is its first instance's
 * turns before the reference's own firing at `level` (the data level).
 */
export function replaySeed({ seed, sessions: count, level, particles }, emit) {
  const { sessions, posterior } = setUp(seed, count, particles);
  sessions.forEach((s, index) => {
    const key = `${s.type}/${s.model}`;
    const pair = posterior.pairOf(key);
    const progress = index / count;
    const { xs, ys } = firstInstancePath(s);
    const { gates, fired } = gatesAlong(sessionCells(pair, progress), xs, ys, level);
    const cut = fired < 0 ? xs.length : fired;
    const summary = posteriorSummary(pair, progress);
    posterior.learnFrom(pair, { xs: xs.slice(0, cut), ys: ys.slice(0, cut), progress });
    const known = fullKnowledgeGates(s, xs, ys);
    const cross = s.degrades ? xs.findIndex((x) => x >= s.onset) : -1;
    const acc = pair.proposed ? +(pair.accepted / pair.proposed).toFixed(3) : null;
    emit({
      seed,
      index,
      key,
      degrades: s.degrades,
      onset: s.onset,
      meanOnset: +s.meanOnset.toFixed(0),
      peak: s.peak,
      rate: s.declinePerKilo,
      noise: s.noiseSd,
      post: summary,
      cross,
      fired,
      n: xs.length,
      xs,
      gates,
      known,
      moves: pair.moves,
      acc,
    });
  });
}

/**
 * The reference as a runPolicy policy: every instance fires on the same posterior predictive (the session's joint
 * posterior over (particle, onset) carried across handoffs), the first instance at `level` from its fourth turn, carried
 * ones at `later` at once. It skips the two turns after a handoff (it knows what a handoff costs, as bayesPolicy does),
 * prepares 25 % of the posterior mean onset, and gives the pair every turn it observed, sorted by size.
 */
function livePolicy({ posterior, count, level, later }) {
  let index = 0;
  let pair;
  let cells;
  let observed;
  let handedOff;
  let instanceTurn;
  let progress;
  return {
    start(s) {
      progress = index / count;
      pair = posterior.pairOf(`${s.type}/${s.model}`);
      cells = sessionCells(pair, progress);
      observed = [];
      handedOff = false;
      instanceTurn = 0;
    },
    decide(context) {
      if (instanceTurn >= FIRST_DECISION || handedOff) {
        const { p, mean } = predictive(cells, context);
        if (p >= (handedOff ? later : level)) {
          handedOff = true;
          instanceTurn = 0;
          return { kind: "handoff", preparedTokens: Math.round(0.25 * mean) };
        }
      }
      return safetyNet(context);
    },
    observe(context, y) {
      instanceTurn++;
      if (handedOff && instanceTurn <= 2) return;
      observed.push([context, y]);
      observeCells(cells, context, y);
    },
    finish() {
      observed.sort((a, b) => a[0] - b[0]);
      posterior.learnFrom(pair, { xs: observed.map((o) => o[0]), ys: observed.map((o) => o[1]), progress });
      index++;
    },
  };
}

/** Live mode: one row per seed, runPolicy's summary beside the oracle's quality. */
export function liveSeed({ seed, sessions: count, level, later, particles }, emit) {
  const { sessions, posterior } = setUp(seed, count, particles);
  const row = runPolicy(sessions, livePolicy({ posterior, count, level, later }), "handoff");
  const oracle = runPolicy(sessions, oraclePolicy(), "handoff").quality;
  emit({ seed, level, later, particles, ...row, oracle, ofOracle: row.quality / oracle });
}
