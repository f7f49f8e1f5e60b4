#!/usr/bin/env node
// Self-tuning retrieval: simulated users over real data, each episode
// one real query through the real prefetch, with thresholds from the learning
// core's Thompson sample.
//
//   npm run build
//   node scripts/bench-adaptive.mjs --locomo <dir> --vite-tree <dir> --vite-queries <jsonl> [--seed 1] [--episodes 200] [--runs 3] [--grid thresholds|full] [--users ABCDEF] [--out <json>]
//
// Data (never copied into the project): --locomo holds turns.jsonl and
// queries.jsonl, five LoCoMo conversations (snap-research/LoCoMo; category 5,
// adversarial, excluded); --vite-tree is vitejs/vite at commit
// a98c8d95d552c6fa98ab66fb810f5b39ad5abf49 and --vite-queries its 300
// localisation queries (commit messages with their gold files), both from the
// benchmark data docs/BENCHMARKS.md names.
//
// An episode is one query: a LoCoMo question over its conversation (every turn
// indexed as one session's history, as bench-locomo does) or a vite commit
// message over the indexed vite tree (indexed with `sylk index`, as
// bench-localization does); half of the episodes come from each, in a seeded
// order every user and policy shares, with the same outcome noise. The policy
// gives the prefetch thresholds: for the learners
// `retrievalSettingsOf(AdaptiveState.sample(…), 0.1)`. The real QueryAugmenter
// runs every episode with them over the real TieredSearcher of the real store
// (a 200k-token window, an empty hot cache and access tracker: each episode is
// a new task, so hot-cache promotion is not exercised). Two things differ from
// a session: the search's clock is fixed, so its 200 ms budget never cuts a
// tier on a busy machine, and the fixed settings' searches are memoised by
// their exact inputs (query, session, vector weight); the learners search
// every episode.
//
// The simulated model reacts to what was injected, from the gold answers
// (LoCoMo evidence turns, vite gold files): see scripts/lib/adaptive-users.mjs
// for what it assumes. User A uses gold excerpts and hints and searches when
// starved; B never uses what was injected and always searches; C flips from A
// to B halfway; D (an extra) flips from B to A; E is misled by a wrong excerpt
// and corrected; F never uses what is injected and corrects any answer that came
// with it. The observation's fields follow
// from that, and the learner is updated with `inferSatisfaction` at the
// sample's applied weights, as the product does.
//
// Policies are COMPARED on a fixed evaluation satisfaction, `inferSatisfaction`
// at `PRIOR_MEAN_WEIGHTS` (the unweighted function): a learner also learns the
// weights of its own satisfaction (and its profile and context biases scale
// them), so its own figure could rise by weighing penalties less with nothing
// better for the user. The learner's own figure is reported beside.
//
// Policies per user: the fixed priors (INITIAL_PRIORS); the learning core as built (the advantage rule
// for the thresholds and weights, and Thompson sampling between injecting, hints only and injecting
// nothing: src/learning/injection-arms.ts) and the same without the arms, `--runs` Thompson streams each
// over the same episodes; and the comparison setting, the best of a grid of fixed settings (confidence
// and excerpt floors, with `--grid full` the weights too, plus "inject nothing" and the priors' items as
// hints only) CHOSEN ON OTHER
// EPISODES: each seed draws twice the episodes, the first half scored, the second (other queries)
// only choosing it. Regret is measured against it; the best of the grid in hindsight (on the scored
// episodes) is shown beside. Writes its figures to --out, by default .sylk-bench/adaptive-seed<seed>-<users>.json, so
// runs of other seeds or users in parallel each keep their own.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  episodeNoise,
  longestLine,
  mean,
  median,
  modelTurn,
  mulberry32,
  outcomeFields,
  pairedDifference,
  settlingEpisodes,
  SETTLE_BAND,
  USERS,
} from "./lib/adaptive-users.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    locomo: { type: "string" },
    "vite-tree": { type: "string" },
    "vite-queries": { type: "string" },
    seed: { type: "string", default: "1" },
    episodes: { type: "string", default: "200" },
    runs: { type: "string", default: "3" },
    grid: { type: "string", default: "thresholds" },
    users: { type: "string", default: "ABCDEF" },
    out: { type: "string" },
  },
});
if (!values.locomo || !values["vite-tree"] || !values["vite-queries"] || !existsSync(values["vite-tree"])) {
  console.error(
    "Usage: node scripts/bench-adaptive.mjs --locomo <dir> --vite-tree <vitejs/vite at a98c8d95> --vite-queries <vitejs__vite.fixed.jsonl> [--seed 1] [--episodes 200] [--runs 3] [--grid thresholds|full] [--users ABCDEF] [--out <json>]",
  );
  process.exit(2);
}
const SEED = Number(values.seed);
// A subset of the users (their ids, e.g. "EF") for a quicker look; a reported figure runs them all.
const SELECTED_USERS = USERS.filter((user) => values.users.toUpperCase().includes(user.id));
const OUT = resolve(values.out ?? join(repo, ".sylk-bench", `adaptive-seed${SEED}-${SELECTED_USERS.map((user) => user.id).join("")}.json`));
const EPISODES = Number(values.episodes);
const RUNS = Number(values.runs);
const WINDOW_TOKENS = 200_000;
const BUDGET_RATIO = 0.1; // context.prefetchBudgetRatio's default
const SCORED_FROM = 51; // "after 50 episodes"

const dist = (path) => import(join(repo, "dist/src", path));
const { openProject } = await dist("app/project-services.js");
const { TieredSearcher } = await dist("context/prefetch/tiered-searcher.js");
const { QueryAugmenter } = await dist("context/prefetch/query-augmenter.js");
const { AccessTracker } = await dist("context/prefetch/access-tracker.js");
const { HotCache } = await dist("context/prefetch/hot-cache.js");
const { CircuitBreaker } = await dist("context/prefetch/circuit-breaker.js");
const { PrefetchMetrics } = await dist("context/prefetch/prefetch-metrics.js");
const { INITIAL_PRIORS } = await dist("context/prefetch/prefetch-config.js");
const { AdaptiveState } = await dist("learning/adaptive-state.js");
const { DEFAULT_UPDATE_CONFIG } = await dist("learning/robust-weight-distribution.js");
const { retrievalSettingsOf } = await dist("learning/retrieval-mapping.js");
const { inferSatisfaction, detectHedging, PRIOR_MEAN_WEIGHTS } = await dist("learning/satisfaction.js");

// ---------- the data, indexed through the real store ----------
const base = mkdtempSync(join(tmpdir(), "sylk-bench-adaptive-"));
const readJsonl = (path) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
const started = performance.now();

/** A project's retrieval: the real tiered searcher (fixed clock), and the same memoised by its exact inputs. */
function retrieval(services) {
  const searcher = new TieredSearcher({
    hotCache: new HotCache(),
    codeSearcher: services.codeSearcher,
    contentStore: services.contentStore,
    breakers: { fulltext: new CircuitBreaker("fulltext"), vector: new CircuitBreaker("vector") },
    now: () => 0,
  });
  const memo = new Map();
  return {
    searcher,
    memoised: {
      search(query, options) {
        const key = JSON.stringify([query, options]);
        if (!memo.has(key)) memo.set(key, searcher.search(query, options));
        return memo.get(key);
      },
    },
  };
}

const projects = [];
const queries = { locomo: [], vite: [] };

const turns = readJsonl(join(values.locomo, "turns.jsonl"));
const locomoQuestions = readJsonl(join(values.locomo, "queries.jsonl")).filter((query) => query.category !== 5);
for (const conversation of [...new Set(turns.map((turn) => turn.conv_id))]) {
  const root = join(base, conversation);
  mkdirSync(root, { recursive: true });
  const services = openProject({ root, env: { ...process.env, SYLK_HOME: join(base, "home"), HOME: base } });
  const sessionId = `locomo-${conversation}`;
  const diaOf = new Map();
  for (const turn of turns.filter((candidate) => candidate.conv_id === conversation)) {
    const entry = await services.contentStore.indexContent({
      sessionId,
      agentId: "locomo",
      agentType: "conversation",
      contentType: turn.turn_index % 2 === 0 ? "user_prompt" : "agent_response",
      content: `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares an image: ${turn.blip_caption}]` : ""}`,
      turnNumber: turn.turn_index + 1,
      metadata: { dia_id: turn.dia_id, session_date: turn.session_date },
    });
    diaOf.set(entry.id, turn.dia_id);
  }
  const project = { services, ...retrieval(services), sessionId };
  projects.push(project);
  for (const question of locomoQuestions.filter((candidate) => candidate.conv_id === conversation)) {
    const evidence = new Set(question.evidence);
    // search_history as the model calls it: the query, every session, 10 results.
    const own = await services.contentStore.search(question.question, {}, 10);
    const found = own.hits.find((hit) => evidence.has(diaOf.get(hit.entry.id)));
    queries.locomo.push({
      source: "locomo",
      id: question.query_id ?? `${conversation}:${queries.locomo.length}`,
      text: question.question,
      project,
      isGold: (item) => item.entryId !== undefined && evidence.has(diaOf.get(item.entryId)),
      ownSearchFinds: found !== undefined,
      // What the answer quotes of the turn its own search found.
      ownSearchTop: found && `turn ${found.entry.turnNumber}: "${longestLine(found.entry.content)}"`,
    });
  }
}

const viteTree = resolve(values["vite-tree"]);
const viteEnv = { ...process.env, SYLK_HOME: join(base, "vite-home") };
const indexRun = spawnSync(process.execPath, [join(repo, "bin/sylk.js"), "index", "--yes", "--json", viteTree], {
  env: viteEnv,
  encoding: "utf8",
});
if (indexRun.status !== 0) throw new Error(`sylk index failed:\n${indexRun.stderr}`);
const viteServices = openProject({ root: viteTree, env: viteEnv });
const viteProject = { services: viteServices, ...retrieval(viteServices) };
projects.push(viteProject);
for (const commit of readJsonl(values["vite-queries"])) {
  const gold = new Set(commit.gold_files);
  // search_codebase as the model calls it: the query, its default 8 results.
  const own = await viteServices.codeSearcher.search(commit.query, { limit: 8 });
  queries.vite.push({
    source: "vite",
    id: commit.id,
    text: commit.query,
    project: viteProject,
    isGold: (item) => item.path !== undefined && gold.has(item.path),
    ownSearchFinds: own.hits.some((hit) => gold.has(hit.path)),
    ownSearchPaths: new Set(own.hits.map((hit) => hit.path)),
    ownSearchTop: ((hit) => hit && `${hit.path}:${hit.startLine}-${hit.endLine}`)(own.hits.find((hit) => gold.has(hit.path))),
  });
}
console.error(
  `Indexed ${turns.length} turns (${queries.locomo.length} questions) and vite (${queries.vite.length} queries) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

// ---------- the episodes: the same queries and noise for every user and policy ----------
// The first EPISODES are scored; the next EPISODES (other queries, drawn without replacement) only choose
// the comparison setting, so "best fixed" is chosen out of sample.
const order = mulberry32(SEED);
const pools = { locomo: [...queries.locomo], vite: [...queries.vite] };
const drawn = [];
for (let index = 0; index < 2 * EPISODES; index++) {
  const pool = order() < 0.5 && pools.locomo.length > 0 ? pools.locomo : pools.vite.length > 0 ? pools.vite : pools.locomo;
  const [query] = pool.splice(Math.floor(order() * pool.length), 1);
  drawn.push({ episode: (index % EPISODES) + 1, query, noise: episodeNoise(order) });
}
const episodes = drawn.slice(0, EPISODES);
const calibration = drawn.slice(EPISODES);
const embedder = viteServices.embedder;
for (const item of episodes) item.embedding = Array.from((await embedder.embed([item.query.text], "query"))[0]);

/** The real augmenter with these thresholds; `memoised` (fixed settings) reuses the searcher's answers to the same inputs. */
async function inject(query, thresholds, memoised) {
  const augmenter = new QueryAugmenter(memoised ? query.project.memoised : query.project.searcher, () => thresholds, new AccessTracker());
  return augmenter.augment(query.text, WINDOW_TOKENS, {
    turn: 0,
    inWindow: new Set(),
    pathsInWindow: new Set(),
    ...(query.project.sessionId ? { sessionId: query.project.sessionId } : {}),
  });
}

/** One episode's figures: the evaluation satisfaction (fixed weights) and what the user saw. */
function figures(turn, observation, ownSatisfaction) {
  return {
    evaluation: inferSatisfaction(observation, PRIOR_MEAN_WEIGHTS),
    own: ownSatisfaction,
    tokens: turn.tokensInjected,
    injected: turn.prefetchedKeys.length,
    used: turn.usedKeys.length,
    searches: turn.searchedAfter.length,
    gold: turn.goldInjected,
  };
}

// ---------- fixed settings: the priors and the hindsight grid ----------
/** A point of the sample space, as a learner's sample would carry it. */
const point = (confidence, excerpt, budget, relevanceBonus, strugglePenalty, wastePenalty) => ({
  sampledThresholds: { confidence, excerpt, budget },
  appliedWeights: { taskSuccess: 0.8, relevanceBonus, strugglePenalty, wastePenalty },
});
// "thresholds" (the default): the two floors at the priors' weights, 36 settings; "full": the weights too, 946.
const WEIGHT_VALUES =
  values.grid === "full"
    ? { relevance: [0.15, 0.3, 0.6], struggle: [0.13, 0.4, 0.8], waste: [0.05, 0.1, 0.2] }
    : { relevance: [0.3], struggle: [0.4], waste: [0.1] };
// Budget 0: never inject; and the priors' items as file hints only (the learner's third arm).
const grid = [point(0.85, 0.9, 0, 0.3, 0.4, 0.1), { ...point(0.85, 0.9, 0.1, 0.3, 0.4, 0.1), injectionArm: "hints" }];
for (const confidence of [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2])
  for (const excerpt of [0.6, 0.75, 0.9, 1.05, 1.3])
    for (const relevance of WEIGHT_VALUES.relevance)
      for (const struggle of WEIGHT_VALUES.struggle)
        for (const waste of WEIGHT_VALUES.waste) grid.push(point(confidence, excerpt, 0.1, relevance, struggle, waste));
const describePoint = ({ sampledThresholds: t, appliedWeights: w, injectionArm }) =>
  t.budget === 0
    ? "inject nothing"
    : `${injectionArm === "hints" ? "hints only, " : ""}confidence ${t.confidence}, excerpt ${t.excerpt}, budget ${t.budget}, relevance ${w.relevanceBonus}, struggle ${w.strugglePenalty}, waste ${w.wastePenalty}`;

/** A fixed setting's model turns for every episode and both behaviours (they do not depend on the user otherwise). */
async function fixedTurns(thresholds, set = episodes) {
  const metrics = new PrefetchMetrics();
  const turns = [];
  for (const { query } of set) {
    const augmented = await inject(query, thresholds, true);
    turns.push(
      Object.fromEntries(BEHAVIOURS.map((behaviour) => [behaviour, modelTurn(behaviour, augmented, query, metrics, detectHedging)])),
    );
  }
  return turns;
}

const BEHAVIOURS = ["uses", "ignores", "misled", "objects"];

function fixedRun(user, turns, set = episodes) {
  return set.map(({ episode, noise }, index) => {
    const turn = turns[index][user.behaviourAt(episode, EPISODES)];
    const observation = outcomeFields(turn, noise);
    const evaluation = inferSatisfaction(observation, PRIOR_MEAN_WEIGHTS);
    return figures(turn, observation, evaluation);
  });
}

const gridStarted = performance.now();
const priorTurns = await fixedTurns(INITIAL_PRIORS);
const gridTurns = [];
const calibrationTurns = [];
for (const setting of grid) {
  gridTurns.push(await fixedTurns(retrievalSettingsOf(setting, BUDGET_RATIO)));
  calibrationTurns.push(await fixedTurns(retrievalSettingsOf(setting, BUDGET_RATIO), calibration));
}
console.error(`${grid.length} fixed settings × ${2 * EPISODES} episodes in ${((performance.now() - gridStarted) / 1000).toFixed(1)} s`);

// ---------- the learners ----------
/**
 * The learners: the core as built (thresholds and weights, and whether to inject at all), and the same
 * without the injection arms (every prompt injects what the thresholds select: the core before them).
 */
const LEARNERS = {
  "learner (as built)": { rule: "advantage", arms: true },
  "learner without the injection arms": { rule: "advantage", arms: false },
};

/** How long each AdaptiveState.update took (the episode applied in memory: what must stay well under 1 ms). */
const updateTimes = [];

async function learnerRun(user, { rule, arms }, run) {
  const random = mulberry32(SEED * 1_000 + run); // the same Thompson stream for every learner
  const state = new AdaptiveState(DEFAULT_UPDATE_CONFIG);
  const metrics = new PrefetchMetrics();
  const rows = [];
  const means = [];
  for (const { episode, query, noise, embedding } of episodes) {
    const drawnSample = state.sample(state.contexts.classify(query.text, embedding), random);
    const sample = arms ? drawnSample : { ...drawnSample, injectionArm: "inject" };
    const augmented = await inject(query, retrievalSettingsOf(sample, BUDGET_RATIO), false);
    const turn = modelTurn(user.behaviourAt(episode, EPISODES), augmented, query, metrics, detectHedging);
    const observation = {
      sequence: episode,
      timestamp: episode,
      query: query.text,
      queryEmbedding: embedding,
      ...sample,
      ...outcomeFields(turn, noise),
      budgetRatio: BUDGET_RATIO,
    };
    const updateStarted = performance.now();
    const result = state.update(observation, rule);
    updateTimes.push(performance.now() - updateStarted);
    rows.push(figures(turn, observation, result.applied ? result.satisfaction : NaN));
    means.push(Object.fromEntries(state.parameters().map((parameter) => [parameter.name, parameter.mean])));
    rows.at(-1).nothing = sample.injectionArm === "nothing" ? 1 : 0;
    rows.at(-1).hints = sample.injectionArm === "hints" ? 1 : 0;
  }
  return { rows, means };
}

// ---------- figures ----------
const half = Math.floor(EPISODES / 2);
const column = (rows, key, from = 1, to = EPISODES) => rows.slice(from - 1, to).map((row) => Number(row[key]));
const segmentMean = (rows, key, from, to) => mean(column(rows, key, from, to));
function bestOf(candidates, from = 1, to = EPISODES) {
  let best = 0;
  candidates.forEach((rows, index) => {
    if (segmentMean(rows, "evaluation", from, to) > segmentMean(candidates[best], "evaluation", from, to)) best = index;
  });
  return best;
}
/** Per episode, the runs' mean of a figure. */
const acrossRuns = (runs, key) => episodes.map((_, index) => mean(runs.map((rows) => Number(rows[index][key]))));
const round = (x, digits = 4) => Number(x.toFixed(digits));

const results = {
  seed: SEED,
  episodes: EPISODES,
  runs: RUNS,
  scoredFrom: SCORED_FROM,
  settleBand: SETTLE_BAND,
  grid: grid.length,
  users: [],
};
const learnerStarted = performance.now();
for (const user of SELECTED_USERS) {
  const gridRuns = gridTurns.map((turns) => fixedRun(user, turns));
  // The comparison setting: the grid's best on the calibration episodes (other queries), scored on these.
  const calibrationIndex = bestOf(calibrationTurns.map((turns) => fixedRun(user, turns, calibration)));
  const best = gridRuns[calibrationIndex];
  const hindsightIndex = bestOf(gridRuns);
  const priors = fixedRun(user, priorTurns);
  const headroom = pairedDifference(column(best, "evaluation"), column(priors, "evaluation"));

  /** A policy's row: `runs` holds each run's episodes (one run for a fixed setting), `means` the learner's posterior means. */
  const summarise = (runs, means) => {
    const perRun = (key, from, to) => mean(runs.map((rows) => segmentMean(rows, key, from, to)));
    const evaluation = acrossRuns(runs, "evaluation");
    const row = {
      tokens: perRun("tokens"),
      injected: perRun("injected"),
      used: perRun("used"),
      searches: perRun("searches"),
      goldInjected: perRun("gold"),
      nothingShare: runs[0][0].nothing === undefined ? null : perRun("nothing", SCORED_FROM),
      hintsShare: runs[0][0].hints === undefined ? null : perRun("hints", SCORED_FROM),
      satisfactionAfter50: perRun("evaluation", SCORED_FROM),
      satisfaction: perRun("evaluation"),
      ownSatisfaction: perRun("own"),
      regretPerEpisode: segmentMean(best, "evaluation") - perRun("evaluation"),
      versusPriorsAfter50: pairedDifference(evaluation.slice(SCORED_FROM - 1), column(priors, "evaluation", SCORED_FROM)),
      curve: evaluation.map((x) => round(x)),
    };
    if (means) {
      const settle = (from, to) => median(means.map((series) => settlingEpisodes(series, from, to)));
      row.convergence = settle(1, user.flips ? half : EPISODES);
      if (user.flips) row.recovery = settle(half + 1, EPISODES);
      row.finalMeans = Object.fromEntries(
        Object.keys(means[0][0]).map((name) => [name, round(mean(means.map((series) => series[EPISODES - 1][name])), 3)]),
      );
    }
    return row;
  };

  const policies = { "fixed priors": summarise([priors]) };
  for (const [name, learner] of Object.entries(LEARNERS)) {
    const runs = [];
    for (let run = 0; run < RUNS; run++) runs.push(await learnerRun(user, learner, run));
    policies[name] = summarise(
      runs.map((run) => run.rows),
      runs.map((run) => run.means),
    );
  }
  policies["best fixed (calibration episodes)"] = summarise([best]);
  policies["best fixed in hindsight (scored episodes)"] = summarise([gridRuns[hindsightIndex]]);
  const gainAfter50 = segmentMean(best, "evaluation", SCORED_FROM) - policies["fixed priors"].satisfactionAfter50;
  for (const row of Object.values(policies)) {
    row.regretShareOfPriors =
      policies["fixed priors"].regretPerEpisode > 0 ? row.regretPerEpisode / policies["fixed priors"].regretPerEpisode : null;
    // The share of the comparison setting's gain over the priors (episodes 51 on) the policy has.
    row.captured = gainAfter50 > 0 ? (row.satisfactionAfter50 - policies["fixed priors"].satisfactionAfter50) / gainAfter50 : null;
  }
  results.users.push({
    id: user.id,
    name: user.name,
    flips: Boolean(user.flips),
    bestFixed: describePoint(grid[calibrationIndex]),
    hindsightFixed: describePoint(grid[hindsightIndex]),
    headroom: { perEpisode: headroom.mean, twoStandardErrors: headroom.twoStandardErrors, afterEpisode50: gainAfter50 },
    policies,
  });
}
console.error(
  `learners: ${SELECTED_USERS.length} users × ${Object.keys(LEARNERS).length} learners × ${RUNS} runs in ${((performance.now() - learnerStarted) / 1000).toFixed(1)} s`,
);

// ---------- report ----------
const f = (x, digits = 3) => (x === null || x === undefined || Number.isNaN(x) ? "–" : x.toFixed(digits));
const signed = (x, digits = 3) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(digits)}`;
const pct = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(0)} %`);
const settled = (x, length) => (x === undefined ? "–" : x >= length ? "still moving" : String(x));
console.log(
  `\nSelf-tuning retrieval: seed ${SEED}, ${EPISODES} scored episodes (half LoCoMo questions, half vite commits) and ${EPISODES} calibration episodes (other queries) that choose the comparison setting; each learner ${RUNS} runs; satisfaction is the evaluation satisfaction (inferSatisfaction at the seed's weights)\n`,
);
console.log(
  "| user | policy | tokens injected / ep | items injected / ep | used / ep | searches after prefetch / ep | injected nothing, ep 51+ | hints only, ep 51+ | satisfaction, ep 51+ | vs priors, ep 51+ (± 2 SE) | satisfaction, all | regret / ep | regret, % of priors' | captured, ep 51+ | convergence (ep) | recovery after flip (ep) |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const user of results.users) {
  for (const [policy, row] of Object.entries(user.policies)) {
    const learner = row.convergence !== undefined;
    const versus =
      policy === "fixed priors" ? "–" : `${signed(row.versusPriorsAfter50.mean)} (± ${f(row.versusPriorsAfter50.twoStandardErrors)})`;
    console.log(
      `| ${user.id} | ${policy} | ${f(row.tokens, 0)} | ${f(row.injected, 2)} | ${f(row.used, 2)} | ${f(row.searches, 2)} | ${row.nothingShare === null ? "–" : pct(row.nothingShare)} | ${row.hintsShare === null ? "–" : pct(row.hintsShare)} | ${f(row.satisfactionAfter50)} | ${versus} | ${f(row.satisfaction)} | ${f(row.regretPerEpisode)} | ${pct(row.regretShareOfPriors)} | ${pct(row.captured)} | ${learner ? settled(row.convergence, user.flips ? half : EPISODES) : "–"} | ${learner ? settled(row.recovery, EPISODES - half) : "–"} |`,
    );
  }
}
console.log("\nThe comparison settings (chosen on the calibration episodes) and, for reference, the best in hindsight:\n");
for (const user of results.users) console.log(`- ${user.id}: ${user.bestFixed}; in hindsight: ${user.hindsightFixed}`);

console.log(
  "\nTargets, the learner as built: headroom ≥ 0.1 / ep → captured ≥ 50 % after episode 50 and regret ≤ 30 % of the priors'; otherwise never below the priors beyond 2 SE\n",
);
console.log(
  "| user | headroom / ep (± 2 SE) | captured, ep 51+ | regret, % of priors' | vs priors, ep 51+ (± 2 SE) | held back, ep 51+ | hints only, ep 51+ | target |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
for (const user of results.users) {
  const row = user.policies["learner (as built)"];
  const h = user.headroom;
  const versus = row.versusPriorsAfter50;
  const below = versus.mean < -versus.twoStandardErrors;
  const target =
    h.perEpisode >= 0.1
      ? row.captured >= 0.5 && row.regretShareOfPriors <= 0.3
        ? "met"
        : "NOT met"
      : below
        ? "NOT met (below the priors)"
        : "met (not below the priors)";
  console.log(
    `| ${user.id} | ${signed(h.perEpisode)} (± ${f(h.twoStandardErrors)}) | ${pct(row.captured)} | ${pct(row.regretShareOfPriors)} | ${signed(versus.mean)} (± ${f(versus.twoStandardErrors)}) | ${pct(row.nothingShare)} | ${pct(row.hintsShare)} | ${target} |`,
  );
}

mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, JSON.stringify(results, null, 2));
console.error(`figures written to ${OUT}`);
for (const project of projects) await project.services.close();
rmSync(base, { recursive: true, force: true });
const sortedUpdates = [...updateTimes].sort((a, b) => a - b);
const updateQuantile = (q) => sortedUpdates[Math.min(sortedUpdates.length - 1, Math.floor(q * sortedUpdates.length))] ?? NaN;
console.log(
  `\nAdaptiveState.update, ${sortedUpdates.length} episodes applied: p50 ${updateQuantile(0.5).toFixed(3)} ms, p95 ${updateQuantile(0.95).toFixed(3)} ms, max ${updateQuantile(1).toFixed(3)} ms`,
);
console.error(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
