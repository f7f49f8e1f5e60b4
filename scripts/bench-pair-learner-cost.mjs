#!/usr/bin/env node
// What the pair's learner (src/handoff/pair-posterior.ts, session-joint.ts) costs in the agent's loop: a turn (the
// session's joint posterior updated by one observation, then its predictive P(onset <= size) read, as a check does),
// a session's end (its turns learned into the pair's posterior, with and without the resample-move that follows when
// the effective sample size falls under half), a profile read (the JSON of the stored row parsed) and the row's size.
// Sessions from the bench's simulator, one (type, model) pair of the given seed.
//
//   npm run build && node scripts/bench-pair-learner-cost.mjs [--seed 10] [--sessions 40]
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { sessionsOf } from "./lib/handoff-outcomes.mjs";
import { BASE_CONTEXT, WINDOW, safetyNet, trueQuality } from "./lib/handoff-simulator.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { seed: { type: "string", default: "10" }, sessions: { type: "string", default: "40" } } });
const dist = join(repo, "dist/src/handoff");
const { learnSession, priorPairPosterior, sessionTurnsOf, effectiveSampleSize } = await import(join(dist, "pair-posterior.js"));
const { SessionJoint } = await import(join(dist, "session-joint.js"));

// One pair's sessions, each observed without firing up to 5 turns past its onset (or the safety net).
const all = sessionsOf(Number(values.seed), 300);
const key = `${all[0].type}/${all[0].model}`;
const sessions = all.filter((s) => `${s.type}/${s.model}` === key).slice(0, Number(values.sessions));
const turnsOf = (s) => {
  const turns = [];
  let context = BASE_CONTEXT;
  let past = 0;
  for (let t = 0; t < s.turns && !safetyNet(context) && past < 5; t++) {
    turns.push([context, Math.min(1, Math.max(0, trueQuality(s, context) * s.outlier[t] + s.noise[t]))]);
    if (context >= s.onset) past++;
    context += s.growth[t];
  }
  return turns;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let pair = priorPairPosterior(WINDOW);
const turnMs = [];
const learnMs = { moved: [], weighted: [] };
const readMs = [];
for (const s of sessions) {
  const turns = turnsOf(s);
  const joint = SessionJoint.start(pair);
  for (const [tokens, quality] of turns) {
    const started = performance.now();
    joint.probabilityDegradedBy(tokens);
    joint.add(tokens, quality);
    turnMs.push(performance.now() - started);
  }
  const started = performance.now();
  const next = learnSession(pair, sessionTurnsOf(turns, pair.sessions, WINDOW));
  const ms = performance.now() - started;
  // A resample-move leaves equal weights (ESS = the particle count).
  (Math.abs(effectiveSampleSize(next) - next.particles.length) < 1e-6 ? learnMs.moved : learnMs.weighted).push(ms);
  pair = next;
  const json = JSON.stringify({ pair });
  const readStarted = performance.now();
  JSON.parse(json);
  readMs.push(performance.now() - readStarted);
}
const fmt = (xs) => (xs.length ? `median ${median(xs).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms (${xs.length})` : "none");
console.log(`pair ${key}, seed ${values.seed}, ${sessions.length} sessions, ${turnMs.length} turns`);
console.log(`turn (predictive + update): ${fmt(turnMs)}`);
console.log(`session end, weights only: ${fmt(learnMs.weighted)}`);
console.log(`session end, resample-move: ${fmt(learnMs.moved)}`);
console.log(`profile row read (JSON.parse): ${fmt(readMs)}; row size ${(JSON.stringify({ pair }).length / 1024).toFixed(0)} KiB`);
