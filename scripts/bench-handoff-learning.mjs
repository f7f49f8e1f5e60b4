#!/usr/bin/env node
// How fast Sylk's handoff profile learns a (type, model)'s onset, pooled
// against unpooled, and what the degradation detector costs a turn. The
// detectors compared at one operating point: scripts/bench-handoff.mjs.
//
//   npm run build && node scripts/bench-handoff-learning.mjs [--seed 1] [--learning-seeds 10]
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { controllerPolicy } from "./lib/controller-policy.mjs";
import { mean, percentile } from "./lib/handoff-outcomes.mjs";
import { AGENT_TYPES, MODELS, WINDOW, expectedOnset, makeSession, makeWorld, mulberry32, runSession } from "./lib/handoff-simulator.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    seed: { type: "string", default: "1" },
    "learning-seeds": { type: "string", default: "10" },
    // false: each instance from the profile alone, as before the onset posterior was carried over a handoff
    memory: { type: "string", default: "true" },
  },
});
const SEED = Number(values.seed);
const LEARNING_SEEDS = Number(values["learning-seeds"]);
const MEMORY = values.memory !== "false";
const { DegradationDetector } = await import(join(repo, "dist/src/handoff/degradation-detector.js"));
const { pooledProfile } = await import(join(repo, "dist/src/handoff/handoff-profile.js"));

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
    const policy = controllerPolicy({ learning, random: mulberry32(seed * 13 + 5), pooling, priorShape, memory: MEMORY });
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
      if (!checkpoints.includes(index)) continue;
      const rows = [...learning.entries()].map(([key, statistics]) => {
        const [agentType, model] = key.split("/");
        return { agentType, model, statistics };
      });
      const profile = pooledProfile({ agentType: target.type, model: target.model, windowTokens: WINDOW, rows, pooling });
      errors.push(Math.abs(profile.onsetTokens - truth) / truth);
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

const checkpoints = [5, 10, 20];
const shapes = ["learned-onset", "plateau-then-decline", "plateau"];
const learningRuns = Object.fromEntries(
  shapes.map((shape) => [
    shape,
    Array.from({ length: LEARNING_SEEDS }, (_, index) => learningCurve(SEED * 1000 + index + 1, checkpoints, shape)),
  ]),
);
const fmt = (value) => (Number.isFinite(value) ? value.toFixed(3) : "∞");
const pct = (value) => `${(100 * value).toFixed(1)} %`;
const lines = [`Learned onset, relative error for one (type, model) over ${LEARNING_SEEDS} seeds (median / mean / share within 15 %):`, ""];
lines.push(`| sessions | ${checkpoints.join(" | ")} |`);
lines.push(`| --- | ${checkpoints.map(() => "---").join(" | ")} |`);
for (const shape of shapes) {
  for (const kind of ["pooled", "unpooled"]) {
    const at = (index) => learningRuns[shape].map((run) => run[kind][index]);
    const cells = checkpoints.map((_, index) => {
      const errors = at(index);
      return `${pct(percentile(errors, 50))} / ${pct(mean(errors))} / ${pct(errors.filter((error) => error <= 0.15).length / errors.length)}`;
    });
    lines.push(`| ${kind}, ${shape} prior | ${cells.join(" | ")} |`);
  }
}
const timing = gpTiming(100);
lines.push("");
lines.push(
  `Detector with 181–200 observations (${timing.samples} turns): observe p50 ${fmt(timing.update.p50)} ms, p95 ${fmt(timing.update.p95)} ms; check p50 ${fmt(timing.predict.p50)} ms, p95 ${fmt(timing.predict.p95)} ms; observe + check p95 ${fmt(timing.updateAndPredict.p95)} ms`,
);
console.log(lines.join("\n"));
