#!/usr/bin/env node
// The handoff controller against a fixed 75 % handoff, the token
// policy (evict at 75 % down to 50 %, same instance), a Bayes detector that
// knows everything but each session's onset (the information limit, at three
// evidence levels) and an oracle that hands off at the true onset, on the
// same simulated sessions (what the simulator
// assumes: scripts/lib/handoff-simulator.mjs). The GP controller learns its
// profiles across the run, as Sylk does across sessions. Also: how fast the
// learned onset converges, pooled against unpooled, and the GP's cost.
//
//   npm run build && node scripts/bench-handoff.mjs [--seed 1] [--sessions 400] [--learning-seeds 10]
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  AGENT_TYPES,
  MODELS,
  WINDOW,
  bayesPolicy,
  expectedOnset,
  fixedThresholdPolicy,
  makeSession,
  makeWorld,
  mulberry32,
  oraclePolicy,
  runSession,
  safetyNet,
  tokenPolicy,
} from "./lib/handoff-simulator.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    seed: { type: "string", default: "1" },
    sessions: { type: "string", default: "400" },
    "learning-seeds": { type: "string", default: "10" },
    triggers: { type: "string", default: "{}" },
  },
});
const SEED = Number(values.seed);
const SESSIONS = Number(values.sessions);
const LEARNING_SEEDS = Number(values["learning-seeds"]);
const TRIGGERS = JSON.parse(values.triggers); // for tuning runs: overrides of DEFAULT_TRIGGERS
const { DegradationDetector } = await import(join(repo, "dist/src/handoff/degradation-detector.js"));
const { emptyStatistics, pooledProfile, withInstance } = await import(join(repo, "dist/src/handoff/handoff-profile.js"));

/** The GP controller: one detector per instance, profiles learned across sessions in `learning` ((type/model) → statistics). */
function gpPolicy({ learning, random, pooling = true, priorShape = "learned-onset" }) {
  let session;
  let detector;
  const rows = () =>
    [...learning.entries()].map(([key, statistics]) => {
      const [agentType, model] = key.split("/");
      return { agentType, model, statistics };
    });
  const profileNow = () =>
    pooledProfile({ agentType: session.type, model: session.model, windowTokens: WINDOW, rows: rows(), random, pooling });
  const learn = () => {
    const key = `${session.type}/${session.model}`;
    learning.set(key, withInstance(learning.get(key) ?? emptyStatistics(), detector.summary()));
  };
  return {
    conditions: {},
    start(s) {
      session = s;
      detector = new DegradationDetector(profileNow(), { triggers: TRIGGERS, priorShape });
    },
    decide(context) {
      const check = detector.check(context);
      if (!check.fire) return safetyNet(context);
      this.conditions[check.condition] = (this.conditions[check.condition] ?? 0) + 1;
      learn();
      const profile = profileNow();
      detector = new DegradationDetector(profile, { preparedFraction: profile.preparedFraction, triggers: TRIGGERS, priorShape });
      return { kind: "handoff", preparedTokens: profile.optimalPreparedSize };
    },
    observe(context, quality) {
      detector.observe(context, quality);
    },
    finish() {
      learn();
    },
  };
}

/**
 * Per session: each instance's crossing of the onset and what ended the
 * instance. A firing (a handoff; for the token policy, an eviction) decided
 * below the onset is early; one at or past it has a delay in turns from the
 * first decision at or past the onset. A crossing with no firing in the
 * next MISS_TURNS turns is missed; one the session ends sooner after is not
 * counted.
 */
const MISS_TURNS = 10;
function firingsOf(session, records, firingKind) {
  const delays = [];
  const earlyAt = []; // how far toward the onset each early firing came (degrading sessions only)
  let early = 0;
  let missed = 0;
  let crossedAt;
  for (const record of records) {
    if (crossedAt === undefined && record.decidedAt >= session.onset) crossedAt = record.turn;
    if (record.action !== firingKind) continue;
    if (record.decidedAt < session.onset) {
      early++;
      if (Number.isFinite(session.onset)) earlyAt.push(record.decidedAt / session.onset);
    } else delays.push(record.turn - crossedAt);
    crossedAt = undefined;
    if (firingKind === "evict") break; // the token policy's first eviction is its firing
  }
  if (crossedAt !== undefined && records.length - crossedAt >= MISS_TURNS) missed++;
  return { delays, early, missed, earlyAt };
}

const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

function comparePolicies(seed) {
  const world = makeWorld(seed);
  const random = mulberry32(seed * 7919 + 1);
  const policyRandom = mulberry32(seed * 104_729 + 3);
  const learning = new Map();
  const gp = gpPolicy({ learning, random: policyRandom });
  const plateauOnly = gpPolicy({ learning: new Map(), random: mulberry32(seed * 104_729 + 5), priorShape: "plateau" });
  const unconditioned = gpPolicy({ learning: new Map(), random: mulberry32(seed * 104_729 + 7), priorShape: "plateau-then-decline" });
  const policies = {
    "GP controller": [gp, "handoff"],
    "GP, prior mean not conditioned on the instance": [unconditioned, "handoff"],
    "GP controller, plateau-only prior": [plateauOnly, "handoff"],
    "fixed 75 % handoff": [fixedThresholdPolicy(), "handoff"],
    "token policy (75 % → 50 %)": [tokenPolicy(), "evict"],
    "Bayes detector, all but the onset known, evidence 0.97": [bayesPolicy(0.97), "handoff"],
    "Bayes detector, all but the onset known, evidence 0.8": [bayesPolicy(0.8), "handoff"],
    "Bayes detector, all but the onset known, evidence 0.9": [bayesPolicy(0.9), "handoff"],
    oracle: [oraclePolicy(), "handoff"],
  };
  const results = Object.fromEntries(
    Object.keys(policies).map((name) => [name, { quality: [], delays: [], early: [], earlyAt: [], missed: 0, neverDegradedFired: 0 }]),
  );
  let neverDegraded = 0;
  for (let index = 0; index < SESSIONS; index++) {
    const type = AGENT_TYPES[Math.floor(random() * AGENT_TYPES.length)];
    const model = MODELS[Math.floor(random() * MODELS.length)];
    const session = makeSession(world, random, type, model, index / SESSIONS);
    if (!session.degrades) neverDegraded++;
    for (const [name, [policy, kind]] of Object.entries(policies)) {
      const records = runSession(session, policy);
      const result = results[name];
      result.quality.push(mean(records.map((record) => record.quality)));
      const firings = firingsOf(session, records, kind);
      result.delays.push(...firings.delays);
      result.early.push(firings.early);
      result.earlyAt.push(...firings.earlyAt);
      result.missed += firings.missed;
      if (!session.degrades && records.some((record) => record.action === kind)) result.neverDegradedFired++;
    }
  }
  const oracleQuality = mean(results.oracle.quality);
  const rows = Object.entries(results).map(([name, result]) => ({
    policy: name,
    medianDelay: percentile(result.delays, 50),
    p90Delay: percentile([...result.delays, ...new Array(result.missed).fill(Number.POSITIVE_INFINITY)], 90),
    missed: result.missed,
    earlyPerSession: mean(result.early),
    sessionsWithEarly: result.early.filter((count) => count > 0).length / SESSIONS,
    earlyAtMedian: percentile(result.earlyAt, 50),
    neverDegradedFired: result.neverDegradedFired / Math.max(neverDegraded, 1),
    quality: mean(result.quality),
    ofOracle: mean(result.quality) / oracleQuality,
  }));
  return { seed, sessions: SESSIONS, neverDegraded, rows, gpConditions: gp.conditions };
}

/**
 * After n sessions of one (type, model), the learned onset's relative error.
 * Pooled: the rows also hold 120 sessions of the other pairs, learned first.
 * Unpooled: (type, model) alone over the built-in default.
 */
function learningCurve(seed, checkpoints, priorShape) {
  const world = makeWorld(seed);
  const target = { type: "engineer", model: MODELS[seed % MODELS.length] };
  const truth = expectedOnset(world, target.type, target.model, 0);
  const out = {};
  for (const pooling of [true, false]) {
    const random = mulberry32(seed * 31 + 17);
    const learning = new Map();
    const policy = gpPolicy({ learning, random: mulberry32(seed * 13 + 5), pooling, priorShape });
    if (pooling) {
      for (let index = 0; index < 120; index++) {
        const type = AGENT_TYPES[Math.floor(random() * AGENT_TYPES.length)];
        const model = MODELS[Math.floor(random() * MODELS.length)];
        if (type === target.type && model === target.model) continue;
        runSession(makeSession(world, random, type, model, 0), policy);
      }
    }
    const errors = [];
    for (let index = 1; index <= Math.max(...checkpoints); index++) {
      runSession(makeSession(world, random, target.type, target.model, 0), policy);
      if (checkpoints.includes(index)) {
        const profile = pooledProfile({
          agentType: target.type,
          model: target.model,
          windowTokens: WINDOW,
          rows: [...learning.entries()].map(([key, statistics]) => ({
            agentType: key.split("/")[0],
            model: key.split("/")[1],
            statistics,
          })),
          pooling,
        });
        errors.push(Math.abs(profile.onsetTokens - truth) / truth);
      }
    }
    out[pooling ? "pooled" : "unpooled"] = errors;
  }
  return out;
}

/**
 * What the controller does each turn, at 181–200 observations: the detector's
 * observe() (onset posterior and GP update) and check() (predictions at the
 * current size and the lookahead, and the triggers); the first 180 are not timed.
 */
function gpTiming(runs) {
  const random = mulberry32(99);
  const update = [];
  const predict = [];
  const both = [];
  const profile = pooledProfile({ agentType: "engineer", model: "m", windowTokens: WINDOW, rows: [] });
  for (let run = 0; run < runs; run++) {
    const detector = new DegradationDetector(profile);
    let tokens = 8000;
    for (let i = 0; i < 200; i++) {
      const quality = 0.9 - Math.max(0, tokens - 60_000) * 0.00001 + 0.05 * (random() - 0.5);
      const t0 = performance.now();
      detector.observe(tokens, quality);
      const t1 = performance.now();
      detector.check(tokens + 500);
      const t2 = performance.now();
      if (i >= 180) {
        update.push(t1 - t0);
        predict.push(t2 - t1);
        both.push(t2 - t0);
      }
      tokens += 500 + Math.round(1000 * random());
    }
  }
  const summary = (values) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });
  return { samples: update.length, update: summary(update), predict: summary(predict), updateAndPredict: summary(both) };
}

const comparison = comparePolicies(SEED);
const checkpoints = [5, 10, 20];
const shapes = ["learned-onset", "plateau-then-decline", "plateau"];
const learningRuns = Object.fromEntries(
  shapes.map((shape) => [
    shape,
    Array.from({ length: LEARNING_SEEDS }, (_, index) => learningCurve(SEED * 1000 + index + 1, checkpoints, shape)),
  ]),
);
const learning = Object.fromEntries(
  shapes.flatMap((shape) =>
    ["pooled", "unpooled"].map((kind) => {
      const runs = learningRuns[shape];
      const at = (index) => runs.map((run) => run[kind][index]);
      return [
        `${kind}, ${shape} prior`,
        Object.fromEntries(
          checkpoints.map((n, index) => [
            n,
            {
              median: percentile(at(index), 50),
              mean: mean(at(index)),
              within15: at(index).filter((error) => error <= 0.15).length / runs.length,
            },
          ]),
        ),
      ];
    }),
  ),
);
const timing = gpTiming(100);

const fmt = (value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "∞");
const pct = (value) => `${(100 * value).toFixed(1)} %`;
const lines = [];
lines.push(
  `Seed ${SEED}, ${SESSIONS} sessions (${comparison.neverDegraded} never degrade), 200k window; GP controller firings by condition: ${JSON.stringify(comparison.gpConditions)}`,
);
lines.push("");
lines.push(
  "| policy | median delay (turns) | p90 delay | missed | firings before onset / session | sessions with one (false-firing sessions) | where (median share of the onset) | never-degrading sessions firing | mean true quality | of oracle |",
);
lines.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const row of comparison.rows) {
  lines.push(
    `| ${row.policy} | ${fmt(row.medianDelay)} | ${fmt(row.p90Delay)} | ${row.missed} | ${fmt(row.earlyPerSession, 3)} | ${pct(row.sessionsWithEarly)} | ${Number.isFinite(row.earlyAtMedian) ? pct(row.earlyAtMedian) : "–"} | ${pct(row.neverDegradedFired)} | ${row.quality.toFixed(4)} | ${pct(row.ofOracle)} |`,
  );
}
lines.push("");
lines.push(`Learned onset, relative error for one (type, model) over ${LEARNING_SEEDS} seeds (median / mean / share within 15 %):`);
lines.push("");
lines.push(`| sessions | ${checkpoints.map((n) => `${n}`).join(" | ")} |`);
lines.push(`| --- | ${checkpoints.map(() => "---").join(" | ")} |`);
for (const kind of Object.keys(learning)) {
  lines.push(
    `| ${kind} | ${checkpoints.map((n) => `${pct(learning[kind][n].median)} / ${pct(learning[kind][n].mean)} / ${pct(learning[kind][n].within15)}`).join(" | ")} |`,
  );
}
lines.push("");
lines.push(
  `Detector with 181–200 observations (${timing.samples} turns): observe p50 ${fmt(timing.update.p50, 3)} ms, p95 ${fmt(timing.update.p95, 3)} ms; check p50 ${fmt(timing.predict.p50, 3)} ms, p95 ${fmt(timing.predict.p95, 3)} ms; observe + check p95 ${fmt(timing.updateAndPredict.p95, 3)} ms`,
);
console.log(lines.join("\n"));

mkdirSync(join(repo, ".sylk-bench"), { recursive: true });
writeFileSync(
  join(repo, ".sylk-bench/handoff.json"),
  JSON.stringify({ seed: SEED, sessions: SESSIONS, triggers: TRIGGERS, comparison, learning, learningRuns, timing }, null, 2),
);
