#!/usr/bin/env node
// Every handoff detector at one operating point. Each detector's threshold
// is chosen on the calibration seeds alone (the most sensitive one whose
// sessions fire before the onset in at most --target of them on every
// calibration seed, so that a seed's own draw of models does not carry the
// rate past the target elsewhere), then frozen and reported on seeds it
// never saw: Sylk's controller with the onset
// posterior carried across handoffs, with two evidence levels (a
// session's first instance's and a carried instance's, chosen together by
// calibrateLevels in scripts/lib/threshold-search.mjs) and with one level
// for both (what the product shipped before its first instance's level
// went under the carried one), with the first instance's level searched
// under the carried one as shipped, without memory (each instance from the
// profile), the
// Bayes detector that knows everything but each session's onset with one
// level and two kept across handoffs, and restarting from the prior, CUSUM
// and Shiryaev–Roberts (the same knowledge, no onset prior), a fixed 75 %
// handoff, the token policy and the oracle, on the same simulated sessions
// (scripts/lib/handoff-simulator.mjs says what it assumes). A session's
// first crossing of its onset and the later ones after a handoff are
// reported apart. The learned onset's convergence and the detector's cost:
// scripts/bench-handoff-learning.mjs. What full knowledge reaches at the
// product's operating point: --only bayesTwoLevels,bayesRemembered.
//
//   npm run build && node scripts/bench-handoff.mjs [--calibration-seeds 10,11,12] [--seeds 21,22,23] [--seen 7,8,9] [--sessions 300] [--target 0.05] [--first-p90 6] [--later-p90 3]
//
// Seeds spent: 7–9, 21–23, 31–33, 51–53, 71–73, 91–93, 111–113, 131–133,
// 151–153, 171–173, 191–193, 211–213, 231–233, 251–253, 271–273, 291–293 and 311–313 (reported), 10–19 (calibration). 111, 112 and 113 (declared in a343ce4,
// what they would be run with in 656c457) were run once in the thirteenth
// session: the product at its levels chosen on 10–19 at 4.5 % (0.8927 /
// 0.9454), the branch point's one level 0.9454, and the reference
// detectors at the levels this bench chose on 10–19 at 4.5 %
// (docs/BENCHMARKS.md, "The first instance's level under the carried
// one…"). 131, 132 and 133 (declared in 0f83f34, before any run of them)
// were run once in the fourteenth session: the product with the decline
// rate's nine steps at 0.8277 / 0.9454 (chosen on 10–19 at 4.5 %), the
// branch point's product at 0.8927 / 0.9454, and the reference detectors
// at the levels chosen on 10–19 in the thirteenth (docs/BENCHMARKS.md, "A
// finer decline rate…"). 151, 152 and 153 (declared in 3f780a4, before any
// run of them) were run once in the fifteenth session: the product with the
// decline rate learned from the sessions' likelihoods at 0.8277 / 0.9454
// (kept by the rule fixed in 5b727a4 on 10–19 at 4.5 %), the branch point's
// product at the same levels, and the reference detectors at the levels
// chosen on 10–19 in the thirteenth (docs/BENCHMARKS.md, "The decline rate
// learned from the sessions' likelihoods…"). 171, 172 and 173 (declared in
// 192f5b9, before any run of them) were run once in the fifteenth session's
// second step: the product with the onset pooled by what the model's own
// sessions say at 0.9454 / 0.9454 (the rule of 5b727a4 as amended in
// 0a589f4, on 10–19 at 4.5 %), the branch point's product at 0.8277 /
// 0.9454, and the reference detectors at the levels chosen on 10–19 in the
// thirteenth (docs/BENCHMARKS.md, "The onset pooled by what the model's own
// sessions say…"). 191, 192 and 193 (declared in 2e096b4, before any run
// of them) were run once in the sixteenth session: the product with a new
// model's onset as wide as its siblings lie apart at 0.9570 / 0.9570 (the
// rule of 3b527e4 on 10–19 at 4.5 %), the branch point's product at
// 0.9454 / 0.9454, and the reference detectors at the levels chosen on
// 10–19 in the thirteenth (docs/BENCHMARKS.md, "A session's first
// crossing…"). 211, 212 and 213 (declared in f746993 on the branch
// m-onset15, before any run of them) were run once in the sixteenth
// session's second step, on a change that was not merged: each rate's
// likelihood at the session's best onset, at 0.86443 / 0.94545 (the stop's
// closing note has the figures). 231, 232 and 233 (declared in d93ecec on
// the branch m-onset16, before any run of them) were run once in the
// seventeenth session: the product with the decline rate's likelihood
// under the instance's onset prior at 0.89116 / 0.93103 (the rule of
// 8dd4aff on 10–19: pooled false firing plus two standard errors within
// 5 %), the branch point's product (1793f6f) at 0.9570 / 0.9570, and the
// reference detectors at the levels chosen on 10–19 in the thirteenth
// (docs/BENCHMARKS.md, "The decline rate's likelihood under the onset
// prior…"). 251, 252 and 253 (declared in 84ac49d on the branch
// m-onset18, before any run of them) were run once in the seventeenth
// session's third step: the product at its defaults, 0.9570 / 0.9570
// (unchanged: at 0.89116 / 0.91314, the rule of 8dd4aff on 10–19 with the
// current likelihood, the firing-regime unit test leaves 0.8–1.2), which
// is also the branch point's (bfd2239) product, beside the product at the
// rule's 0.89116 / 0.91314 and the reference detectors at the levels
// chosen on 10–19 in the thirteenth (docs/BENCHMARKS.md, "The levels on
// the current likelihood…"). 271, 272 and 273 (declared in 2ee4762 on the
// branch m-onset19, before any run of them) were run once: the product with
// the likelihood read at the profile's noise (instance-noise.ts) at its
// new defaults 0.93103 / 0.94545 (the rule of m-onset19 on 10-19: no seed
// over 4.5 %), the branch point's product (7045ddc) at its defaults
// 0.9570 / 0.9570, and the reference detectors at the levels chosen on
// 10-19 in the thirteenth session (docs/BENCHMARKS.md, "What holds the
// slow first crossings…"). 291, 292 and 293 (declared in 24f4fe4 on the
// branch m-onset20, before any run of them) were run once: the product at
// 0.91314 / 0.96619, its defaults then (the levels' rule of m-onset20 on
// 10-19: a new seed's 97.5 % prediction bound within 5 %, and the
// firing-regime test on its seeds 27-32), the branch point's (a606c9b)
// product at 0.93103 / 0.94545, and the reference detectors at the levels
// chosen on 10-19 in the thirteenth session (docs/BENCHMARKS.md, "The
// carried instances' early firings…"); the lead then set the defaults
// back to 0.93103 / 0.94545, having seen 291-293, so those seeds count as
// seen for that choice. The next report needs seeds declared anew.
// 311, 312 and 313 (declared in 7117a57, before any run of them) were run
// once in the twenty-sixth session: the
// product at its defaults, 0.93103 / 0.94545 (DEFAULT_TRIGGERS, unchanged
// since 465643b), and the reference detectors at the levels chosen on
// 10-19 in the thirteenth session (Bayes two levels 0.9345 / 0.9774, Bayes
// kept 0.9622, CUSUM 4.69, Shiryaev-Roberts 5.16), with the oracle; the
// product's rows on 10-19 at the same levels beside them
// (docs/BENCHMARKS.md, "The product at its defaults on the unseen seeds
// 311–313…"). The next report needs seeds declared anew.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cusumPolicy, shiryaevRobertsPolicy } from "./lib/change-point-detectors.mjs";
import { controllerPolicy } from "./lib/controller-policy.mjs";
import { runPolicy, sessionsOf } from "./lib/handoff-outcomes.mjs";
import { bayesPolicy, fixedThresholdPolicy, mulberry32, oraclePolicy, tokenPolicy } from "./lib/handoff-simulator.mjs";
import { calibrateLevels, calibrateThreshold, logit, sigmoid } from "./lib/threshold-search.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    "calibration-seeds": { type: "string", default: "10,11,12" },
    seeds: { type: "string", default: "21,22,23" },
    // reported too, marked as seen: seeds an earlier calibration or report already used
    seen: { type: "string", default: "" },
    sessions: { type: "string", default: "300" },
    target: { type: "string", default: "0.05" },
    // two-level detectors: the first and the later crossings' p90 their levels must keep on every calibration seed
    "first-p90": { type: "string", default: "6" },
    "later-p90": { type: "string", default: "3" },
    only: { type: "string" }, // comma-separated detector keys, for a partial run
    // false: report only the unseen and seen seeds (the calibration seeds' rows cost a run each of the slow detectors)
    "report-calibration": { type: "string", default: "true" },
    // earlier runs' outputs (comma-separated): their calibrated thresholds are used as they are, for the seeds to report
    thresholds: { type: "string" },
    out: { type: "string", default: ".sylk-bench/handoff.json" },
  },
});
const seedList = (text) => (text ? text.split(",").map(Number) : []);
const CALIBRATION_SEEDS = seedList(values["calibration-seeds"]);
const SEEDS = seedList(values.seeds);
const SEEN = seedList(values.seen);
const REPORTED_SEEDS = [...(values["report-calibration"] === "false" ? [] : CALIBRATION_SEEDS), ...SEEDS, ...SEEN];
const SESSIONS = Number(values.sessions);
const TARGET = Number(values.target);
const FIRST_P90 = Number(values["first-p90"]);
const LATER_P90 = Number(values["later-p90"]);
/** A two-level detector's first level steps this far on its log-odds (calibrateLevels). */
const LEVEL_STEP = 0.25;
if ([...SEEDS, ...SEEN].some((seed) => CALIBRATION_SEEDS.includes(seed))) throw new Error("a calibration seed must not be a reported one");

/**
 * The detectors. `make(threshold, seed)` builds a fresh policy (a learning
 * controller starts the run with no profile); `scale` is where the
 * calibration searches, from too sensitive (`low`) to too deaf (`high`),
 * and `toThreshold` maps it to the threshold. Probabilities are searched on
 * their log-odds, log-likelihood ratios as they are.
 */
const evidenceScale = { low: logit(0.5), high: logit(0.99999), toThreshold: sigmoid, tolerance: 0.25 };
const ratioScale = { low: 0, high: 60, tolerance: 0.5 };
const controllerRandom = (seed) => mulberry32(seed * 104_729 + 3);
const DETECTORS = {
  fresh: {
    name: "Sylk controller, each instance from the profile (before)",
    make: (evidence, seed) =>
      controllerPolicy({ random: controllerRandom(seed), memory: false, triggers: { onsetEvidence: evidence, onsetReached: 2 } }),
    scale: evidenceScale,
  },
  // Two levels sharing the budget: the first instance's gate (onsetEvidence), a carried instance's onset_reached and gate (onsetReached).
  remembered: {
    name: "Sylk controller, onset posterior carried across handoffs (the product)",
    make: ({ first, later }, seed) =>
      controllerPolicy({ random: controllerRandom(seed), memory: true, triggers: { onsetEvidence: first, onsetReached: later } }),
    scale: evidenceScale,
    levels: 2,
    // A run of the product costs about 16 s of CPU a seed, so its search starts where the calibration seeds bound it: the
    // one level chosen before (0.9369, the bisection's 15/64 of the way to 0.99999) kept every seed within the budget
    // with carried instances firing too, and carried levels past 0.995 leave the later crossings far past their target.
    // (Bounds found with the onset posterior that clipped failed turns. The one that weighs them fired early in at most
    // 2.7 % of sessions with one level of 0.914, below the upper bound, and 10.7 % at 0.8; the two-level rule was not
    // run on it.)
    brackets: { firstLow: logit(0.8), firstHigh: (15 / 64) * logit(0.99999), laterHigh: logit(0.995) },
  },
  rememberedOneLevel: {
    name: "Sylk controller, onset carried, one level for every instance (shipped before the first level went under it)",
    make: (evidence, seed) =>
      controllerPolicy({ random: controllerRandom(seed), memory: true, triggers: { onsetEvidence: evidence, onsetReached: evidence } }),
    scale: evidenceScale,
    // As the two levels' search, where the calibration seeds bound it: at 0.8 the onset posterior that weighs failed
    // turns fired early in 6.7-10.7 % of sessions, at 0.995 in none.
    brackets: { low: logit(0.8), high: logit(0.995) },
  },
  // The first instance's level alone, below the carried one as shipped (DEFAULT_TRIGGERS.onsetReached, the one level
  // 0.9454 chose on 10-19): how the product's first level is searched (docs/DESIGN-NOTES.md, "Triggers"). At 0.8 it fired
  // early in 5.3 % of seed 11's and seed 15's sessions. With three decline rates the search on 10-19 at 4.5 % ended at
  // 0.8523 and the product took its step 0.8927, the most sensitive whose later crossings were still the one level's on
  // every seed; with nine (2026-11-30) it ends at 0.8277 (seed 11 4.7 % at 0.8), whose later crossings are, and the
  // product takes 0.8277.
  rememberedFirstLevel: {
    name: "Sylk controller, onset carried, the first instance's level (the carried one as shipped)",
    make: (evidence, seed) => controllerPolicy({ random: controllerRandom(seed), memory: true, triggers: { onsetEvidence: evidence } }),
    scale: evidenceScale,
    brackets: { low: logit(0.8), high: logit(0.9454) },
  },
  // What is reachable: the detector that knows all but each session's onset, with the product's two levels.
  bayesTwoLevels: {
    name: "Bayes, all but the onset known, kept across handoffs, two levels",
    make: ({ first, later }) => bayesPolicy(first, { memory: true, laterEvidence: later }),
    scale: evidenceScale,
    levels: 2,
  },
  bayesRemembered: {
    name: "Bayes, all but the onset known, posterior kept across handoffs",
    make: (evidence) => bayesPolicy(evidence, { memory: true }),
    scale: evidenceScale,
  },
  bayesFresh: {
    name: "Bayes, all but the onset known, each instance from the prior",
    make: (evidence) => bayesPolicy(evidence),
    scale: evidenceScale,
  },
  cusum: { name: "CUSUM, all but the onset known, no onset prior", make: (threshold) => cusumPolicy(threshold), scale: ratioScale },
  shiryaevRoberts: {
    name: "Shiryaev–Roberts, all but the onset known, no onset prior",
    make: (threshold) => shiryaevRobertsPolicy(threshold),
    scale: ratioScale,
  },
  fixed: { name: "fixed 75 % handoff", make: () => fixedThresholdPolicy() },
  token: { name: "token policy (evict 75 % → 50 %)", make: () => tokenPolicy(), firing: "evict" },
  oracle: { name: "oracle (hands off at the true onset)", make: () => oraclePolicy() },
};
const keys = values.only ? values.only.split(",") : Object.keys(DETECTORS);

const log = (line) => process.stderr.write(`${line}\n`);
const calibrationSessions = new Map(CALIBRATION_SEEDS.map((seed) => [seed, sessionsOf(seed, SESSIONS)]));
const thresholds = {};
const calibration = {};
for (const file of values.thresholds ? values.thresholds.split(",") : []) {
  const earlier = JSON.parse(readFileSync(resolve(repo, file), "utf8"));
  if (earlier.calibrationSeeds?.join(",") !== CALIBRATION_SEEDS.join(","))
    throw new Error(`${file} was not calibrated on seeds ${CALIBRATION_SEEDS.join(", ")}`);
  Object.assign(thresholds, earlier.thresholds);
  Object.assign(calibration, earlier.calibration);
}
// Each detector's outcomes on the calibration seeds, per threshold: the two-level search asks again for what it has run.
const calibrationRuns = new Map();
const calibrationOutcome = (key, threshold, seed) => {
  const id = `${key} ${JSON.stringify(threshold)} ${seed}`;
  if (!calibrationRuns.has(id)) {
    const detector = DETECTORS[key];
    calibrationRuns.set(id, runPolicy(calibrationSessions.get(seed), detector.make(threshold, seed), detector.firing ?? "handoff"));
  }
  return calibrationRuns.get(id);
};
// The largest rate among the calibration seeds: every one of them within the target (past it on one, the rest need not run).
const worstRate = (key, threshold) => {
  let worst = 0;
  for (const seed of CALIBRATION_SEEDS) {
    worst = Math.max(worst, calibrationOutcome(key, threshold, seed).falseFiringSessions);
    if (worst > TARGET) break;
  }
  return worst;
};
for (const key of keys) {
  const detector = DETECTORS[key];
  if (!detector.scale || thresholds[key] !== undefined) continue;
  const started = performance.now();
  const result =
    detector.levels === 2
      ? calibrateLevels({
          ...detector.scale,
          ...detector.brackets,
          target: TARGET,
          never: 2,
          step: LEVEL_STEP,
          rateAt: (first, later) => worstRate(key, { first, later }),
          laterMetAt: (first, later) =>
            CALIBRATION_SEEDS.every((seed) => calibrationOutcome(key, { first, later }, seed).laterP90 <= LATER_P90),
          firstMetAt: (first, later) =>
            CALIBRATION_SEEDS.every((seed) => calibrationOutcome(key, { first, later }, seed).firstP90 <= FIRST_P90),
        })
      : calibrateThreshold({ ...detector.scale, ...detector.brackets, target: TARGET, rateAt: (threshold) => worstRate(key, threshold) });
  thresholds[key] = detector.levels === 2 ? { first: result.first, later: result.later } : result.threshold;
  calibration[key] = result;
  log(
    `calibrated ${key}: ${JSON.stringify(thresholds[key])} (${result.tried.length} runs, ${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
}

const reported = {};
for (const seed of REPORTED_SEEDS) {
  const sessions = calibrationSessions.get(seed) ?? sessionsOf(seed, SESSIONS);
  const rows = {};
  for (const key of keys) {
    const detector = DETECTORS[key];
    rows[key] = calibrationSessions.has(seed)
      ? calibrationOutcome(key, thresholds[key], seed)
      : runPolicy(sessions, detector.make(thresholds[key], seed), detector.firing ?? "handoff");
  }
  const oracle = keys.includes("oracle") ? rows.oracle.quality : runPolicy(sessions, oraclePolicy(), "handoff").quality;
  for (const row of Object.values(rows)) row.ofOracle = row.quality / oracle;
  reported[seed] = { neverDegrade: sessions.filter((session) => !session.degrades).length, rows };
  log(`seed ${seed} done`);
}

const fmt = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "∞");
const pct = (value) => `${(100 * value).toFixed(1)} %`;
const thresholdText = (key) => {
  const threshold = thresholds[key];
  if (threshold === undefined) return "–";
  if (DETECTORS[key].levels === 2) return `${threshold.first.toFixed(4)} / ${threshold.later.toFixed(4)}`;
  return DETECTORS[key].scale === evidenceScale ? threshold.toFixed(4) : threshold.toFixed(2);
};
const lines = [];
// The bench's own rule is for the levels it calibrates in this run; levels read from --thresholds are used as given (the
// product's come from its levels' rule, docs/DESIGN-NOTES.md, "Triggers"), so the header says which is which.
const given = keys.filter((key) => thresholds[key] !== undefined && calibration[key] === undefined);
const calibrated = keys.filter((key) => calibration[key] !== undefined);
lines.push(
  `Calibration seeds ${CALIBRATION_SEEDS.join(", ")}; unseen seeds ${SEEDS.join(", ")}${SEEN.length > 0 ? `; seen seeds ${SEEN.join(", ")}` : ""}; ${SESSIONS} sessions each.`,
  `This bench's rule for the levels it calibrates (here, or in an earlier run whose output --thresholds read): the most sensitive with at most ${pct(TARGET)} of sessions firing early on every calibration seed${calibrated.length > 0 ? ` (${calibrated.join(", ")})` : ""}.${given.length > 0 ? ` Levels given by --thresholds, used as they are, not chosen by that rule: ${given.join(", ")} (the product's levels' rule: docs/DESIGN-NOTES.md, "Triggers").` : ""}`,
);
const roleOf = (seed) => (CALIBRATION_SEEDS.includes(seed) ? " (calibration)" : SEEN.includes(seed) ? " (seen before)" : " (unseen)");
for (const seed of REPORTED_SEEDS) {
  const { neverDegrade, rows } = reported[seed];
  lines.push("");
  lines.push(`Seed ${seed}${roleOf(seed)}: ${neverDegrade} of ${SESSIONS} sessions never degrade.`);
  lines.push("");
  lines.push(
    "| detector | threshold | false-firing sessions | first crossing median / p90 (n, missed) | later crossings median / p90 (n, missed) | handoffs / session | never-degrading firing | of oracle |",
  );
  lines.push("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const key of keys) {
    const row = rows[key];
    lines.push(
      `| ${DETECTORS[key].name} | ${thresholdText(key)} | ${pct(row.falseFiringSessions)} | ${fmt(row.firstMedian)} / ${fmt(row.firstP90)} (${row.firstCount}, ${row.firstMissed}) | ${fmt(row.laterMedian)} / ${fmt(row.laterP90)} (${row.laterCount}, ${row.laterMissed}) | ${row.handoffsPerSession.toFixed(2)} | ${pct(row.neverDegradedFired)} | ${pct(row.ofOracle)} |`,
    );
  }
}
console.log(lines.join("\n"));

const out = resolve(repo, values.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  JSON.stringify(
    {
      calibrationSeeds: CALIBRATION_SEEDS,
      seeds: SEEDS,
      seen: SEEN,
      sessions: SESSIONS,
      target: TARGET,
      thresholds,
      calibration,
      reported,
    },
    null,
    2,
  ),
);
