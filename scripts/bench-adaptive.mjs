#!/usr/bin/env node
// Self-tuning retrieval: simulated users over real data, each episode
// one real query through the real prefetch, with thresholds from the learning
// core's Thompson sample.
//
//   npm run build
//   node scripts/bench-adaptive.mjs --locomo <dir> --vite-tree <dir> --vite-queries <jsonl> [--seed 1] [--episodes 200] [--runs 5]
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
// to B halfway; D (an extra) flips from B to A. The observation's fields follow
// from that, and the learner is updated with `inferSatisfaction` at the
// sample's applied weights, as the product does.
//
// Policies are COMPARED on a fixed evaluation satisfaction, `inferSatisfaction`
// at `PRIOR_MEAN_WEIGHTS` (the unweighted function): a learner also learns the
// weights of its own satisfaction (and its profile and context biases scale
// them), so its own figure could rise by weighing penalties less with nothing
// better for the user. The learner's own figure is reported beside.
//
// Policies per user: the fixed priors (INITIAL_PRIORS); the learning core with
// the "seed" update rule (signal = satisfaction) and with the advantage rule (for the thresholds the
// paired advantage, from the prefetch each episode records), as built (the
// default update settings: reflection, satisfaction at the weights' means) and
// with the original update steps (`negativeEvidence: "mirror"`, `rewardWeights:
// "applied"`), `--runs` Thompson streams each over the same episodes; and the best fixed setting in
// hindsight: the setting of a grid of samples (confidence and excerpt floors,
// budget, relevance, struggle and waste weights, mapped by
// retrievalSettingsOf) with the highest mean evaluation satisfaction over that
// user's run. Regret is measured against it. Writes .sylk-bench/adaptive.json.
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
  standardDeviation,
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
    runs: { type: "string", default: "5" },
  },
});
if (!values.locomo || !values["vite-tree"] || !values["vite-queries"] || !existsSync(values["vite-tree"])) {
  console.error(
    "Usage: node scripts/bench-adaptive.mjs --locomo <dir> --vite-tree <vitejs/vite at a98c8d95> --vite-queries <vitejs__vite.fixed.jsonl> [--seed 1] [--episodes 200] [--runs 5]",
  );
  process.exit(2);
}
const SEED = Number(values.seed);
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
    ownSearchTop: ((hit) => hit && `${hit.path}:${hit.startLine}-${hit.endLine}`)(own.hits.find((hit) => gold.has(hit.path))),
  });
}
console.error(
  `Indexed ${turns.length} turns (${queries.locomo.length} questions) and vite (${queries.vite.length} queries) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

// ---------- the episodes: the same queries and noise for every user and policy ----------
const order = mulberry32(SEED);
const pools = { locomo: [...queries.locomo], vite: [...queries.vite] };
const episodes = [];
for (let episode = 1; episode <= EPISODES; episode++) {
  const pool = order() < 0.5 && pools.locomo.length > 0 ? pools.locomo : pools.vite.length > 0 ? pools.vite : pools.locomo;
  const [query] = pool.splice(Math.floor(order() * pool.length), 1);
  episodes.push({ episode, query, noise: episodeNoise(order) });
}
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
const grid = [point(0.85, 0.9, 0, 0.3, 0.4, 0.1)]; // budget 0: never inject
for (const confidence of [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2])
  for (const excerpt of [0.6, 0.75, 0.9, 1.05, 1.3])
    for (const relevance of [0.15, 0.3, 0.6])
      for (const struggle of [0.13, 0.4, 0.8])
        for (const waste of [0.05, 0.1, 0.2]) grid.push(point(confidence, excerpt, 0.1, relevance, struggle, waste));
const describePoint = ({ sampledThresholds: t, appliedWeights: w }) =>
  t.budget === 0
    ? "inject nothing"
    : `confidence ${t.confidence}, excerpt ${t.excerpt}, budget ${t.budget}, relevance ${w.relevanceBonus}, struggle ${w.strugglePenalty}, waste ${w.wastePenalty}`;

/** A fixed setting's model turns for every episode and both behaviours (they do not depend on the user otherwise). */
async function fixedTurns(thresholds) {
  const metrics = new PrefetchMetrics();
  const turns = [];
  for (const { query } of episodes) {
    const augmented = await inject(query, thresholds, true);
    turns.push({
      uses: modelTurn("uses", augmented, query, metrics, detectHedging),
      ignores: modelTurn("ignores", augmented, query, metrics, detectHedging),
    });
  }
  return turns;
}

function fixedRun(user, turns) {
  return episodes.map(({ episode, noise }, index) => {
    const turn = turns[index][user.behaviourAt(episode, EPISODES)];
    const observation = outcomeFields(turn, noise);
    const evaluation = inferSatisfaction(observation, PRIOR_MEAN_WEIGHTS);
    return figures(turn, observation, evaluation);
  });
}

const gridStarted = performance.now();
const priorTurns = await fixedTurns(INITIAL_PRIORS);
const gridTurns = [];
for (const setting of grid) gridTurns.push(await fixedTurns(retrievalSettingsOf(setting, BUDGET_RATIO)));
console.error(`${grid.length} fixed settings × ${EPISODES} episodes in ${((performance.now() - gridStarted) / 1000).toFixed(1)} s`);

// ---------- the learners ----------
/** The learning core as built, and with the original update steps (the mirror, the satisfaction at the sampled weights). */
const CORES = {
  "": DEFAULT_UPDATE_CONFIG,
  ", the seed's update steps": { ...DEFAULT_UPDATE_CONFIG, negativeEvidence: "mirror", rewardWeights: "applied" },
};

/** How long each AdaptiveState.update took (the episode applied in memory: what must stay well under 1 ms). */
const updateTimes = [];

async function learnerRun(user, rule, core, run) {
  const random = mulberry32(SEED * 1_000 + run); // the same Thompson stream for every rule and core
  const state = new AdaptiveState(core);
  const metrics = new PrefetchMetrics();
  const rows = [];
  const means = [];
  for (const { episode, query, noise, embedding } of episodes) {
    const sample = state.sample(state.contexts.classify(query.text, embedding), random);
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
for (const user of USERS) {
  const gridRuns = gridTurns.map((turns) => fixedRun(user, turns));
  const bestIndex = bestOf(gridRuns);
  const best = gridRuns[bestIndex];
  const priors = fixedRun(user, priorTurns);
  const phaseBest = user.flips ? [bestOf(gridRuns, 1, half), bestOf(gridRuns, half + 1, EPISODES)] : null;
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
      if (user.flips)
        row.meansAtFlip = Object.fromEntries(
          Object.keys(means[0][0]).map((name) => [name, round(mean(means.map((series) => series[half - 1][name])), 3)]),
        );
    }
    if (user.flips) row.satisfactionAfterFlip = perRun("evaluation", half + 1);
    return row;
  };

  const policies = { "fixed priors": summarise([priors]) };
  for (const [suffix, core] of Object.entries(CORES)) {
    for (const rule of ["seed", "advantage"]) {
      const runs = [];
      for (let run = 0; run < RUNS; run++) runs.push(await learnerRun(user, rule, core, run));
      policies[`${rule} rule${suffix}`] = summarise(
        runs.map((run) => run.rows),
        runs.map((run) => run.means),
      );
    }
  }
  policies["best fixed (hindsight)"] = summarise([best]);
  for (const row of Object.values(policies))
    row.regretShareOfPriors =
      policies["fixed priors"].regretPerEpisode > 0 ? row.regretPerEpisode / policies["fixed priors"].regretPerEpisode : null;
  results.users.push({
    id: user.id,
    name: user.name,
    flips: Boolean(user.flips),
    bestFixed: describePoint(grid[bestIndex]),
    phaseBestFixed: phaseBest?.map((index) => describePoint(grid[index])) ?? null,
    // What a perfect choice of fixed setting gains over the priors, per episode, and how many episodes a paired comparison needs to tell the two apart (2 standard errors).
    // A learner never sees both on the same episode: it compares the settings' means over different episodes.
    headroom: {
      perEpisode: headroom.mean,
      pairedSd: headroom.sd,
      episodesPaired: headroom.mean > 0 ? Math.ceil(((2 * headroom.sd) / headroom.mean) ** 2) : null,
      satisfactionSd: [standardDeviation(column(best, "evaluation")), standardDeviation(column(priors, "evaluation"))],
      episodesEachUnpaired:
        headroom.mean > 0
          ? Math.ceil(
              (4 * (standardDeviation(column(best, "evaluation")) ** 2 + standardDeviation(column(priors, "evaluation")) ** 2)) /
                headroom.mean ** 2,
            )
          : null,
    },
    policies,
  });
}
console.error(
  `learners: ${USERS.length} users × ${Object.keys(CORES).length * 2} learners × ${RUNS} runs in ${((performance.now() - learnerStarted) / 1000).toFixed(1)} s`,
);

// ---------- report ----------
const f = (x, digits = 3) => (x === null || x === undefined || Number.isNaN(x) ? "–" : x.toFixed(digits));
const signed = (x, digits = 3) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(digits)}`;
const pct = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(0)} %`);
const settled = (x, length) => (x === undefined ? "–" : x >= length ? "still moving" : String(x));
console.log(
  `\nSelf-tuning retrieval: seed ${SEED}, ${EPISODES} episodes (half LoCoMo questions, half vite commits), each learner ${RUNS} runs; satisfaction is the evaluation satisfaction (inferSatisfaction at the seed's weights)\n`,
);
console.log(
  "| user | policy | tokens injected / ep | items injected / ep | used / ep | searches after prefetch / ep | satisfaction, ep 51+ | vs priors, ep 51+ (± 2 SE) | satisfaction, all | learner's own satisfaction | regret / ep | regret, % of priors' | convergence (ep) | recovery after flip (ep) |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const user of results.users) {
  for (const [policy, row] of Object.entries(user.policies)) {
    const learner = row.convergence !== undefined;
    const versus =
      policy === "fixed priors" ? "–" : `${signed(row.versusPriorsAfter50.mean)} (± ${f(row.versusPriorsAfter50.twoStandardErrors)})`;
    console.log(
      `| ${user.id} | ${policy} | ${f(row.tokens, 0)} | ${f(row.injected, 2)} | ${f(row.used, 2)} | ${f(row.searches, 2)} | ${f(row.satisfactionAfter50)} | ${versus} | ${f(row.satisfaction)} | ${learner ? f(row.ownSatisfaction) : "–"} | ${f(row.regretPerEpisode)} | ${pct(row.regretShareOfPriors)} | ${learner ? settled(row.convergence, user.flips ? half : EPISODES) : "–"} | ${learner ? settled(row.recovery, EPISODES - half) : "–"} |`,
    );
  }
}
console.log(
  "\nWhat there is to learn: the best fixed setting's gain over the priors, and the episodes needed to tell the two apart at 2 standard errors, on the same episodes (paired) and on different episodes (each, as a learner must)\n",
);
console.log(
  "| user | best fixed setting in hindsight | gain over the priors / ep | sd of the paired difference | episodes, paired | sd of satisfaction (best, priors) | episodes each, unpaired |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
for (const user of results.users) {
  const phases = user.phaseBestFixed ? ` (first half: ${user.phaseBestFixed[0]}; second half: ${user.phaseBestFixed[1]})` : "";
  const h = user.headroom;
  console.log(
    `| ${user.id} | ${user.bestFixed}${phases} | ${f(h.perEpisode, 4)} | ${f(h.pairedSd)} | ${h.episodesPaired ?? "–"} | ${f(h.satisfactionSd[0])}, ${f(h.satisfactionSd[1])} | ${h.episodesEachUnpaired ?? "–"} |`,
  );
}
console.log("\nLearned means at the end (mean of the runs; confidence / excerpt / budget, then relevance / struggle / waste):");
const short = (means) =>
  [
    "thresholds.confidence",
    "thresholds.excerpt",
    "thresholds.budget",
    "weights.relevanceBonus",
    "weights.strugglePenalty",
    "weights.wastePenalty",
  ]
    .map((name) => f(means[name], 2))
    .join(" / ");
for (const user of results.users) {
  for (const [policy, row] of Object.entries(user.policies))
    if (row.finalMeans)
      console.log(
        `- ${user.id}, ${policy}: ${row.meansAtFlip ? `at the flip ${short(row.meansAtFlip)}; ` : ""}at the end ${short(row.finalMeans)}`,
      );
}

console.log(
  "\nTargets, per learner: satisfaction ep 51+ above the priors' | above the seed rule's (same core) | regret < 10 % of the priors' | recovery ≤ 30 episodes",
);
const verdict = (ok, difference) =>
  ok
    ? difference && Math.abs(difference.mean) < difference.twoStandardErrors
      ? "met (within noise)"
      : "met"
    : difference && Math.abs(difference.mean) < difference.twoStandardErrors
      ? "not met (within noise)"
      : "NOT met";
for (const user of results.users) {
  for (const suffix of Object.keys(CORES)) {
    for (const rule of ["seed", "advantage"]) {
      const row = user.policies[`${rule} rule${suffix}`];
      const seedRow = user.policies[`seed rule${suffix}`];
      const parts = [verdict(row.satisfactionAfter50 > user.policies["fixed priors"].satisfactionAfter50, row.versusPriorsAfter50)];
      parts.push(
        rule === "seed"
          ? "–"
          : verdict(
              row.satisfactionAfter50 > seedRow.satisfactionAfter50,
              pairedDifference(row.curve.slice(SCORED_FROM - 1), seedRow.curve.slice(SCORED_FROM - 1)),
            ),
      );
      parts.push(verdict(row.regretShareOfPriors !== null && row.regretShareOfPriors < 0.1, null));
      parts.push(user.flips ? verdict(row.recovery <= 30, null) : "–");
      console.log(`- ${user.id}, ${rule} rule${suffix}: ${parts.join(" | ")}`);
    }
  }
}

mkdirSync(join(repo, ".sylk-bench"), { recursive: true });
writeFileSync(join(repo, ".sylk-bench/adaptive.json"), JSON.stringify(results, null, 2));
for (const project of projects) await project.services.close();
rmSync(base, { recursive: true, force: true });
const sortedUpdates = [...updateTimes].sort((a, b) => a - b);
const updateQuantile = (q) => sortedUpdates[Math.min(sortedUpdates.length - 1, Math.floor(q * sortedUpdates.length))] ?? NaN;
console.log(
  `\nAdaptiveState.update, ${sortedUpdates.length} episodes applied: p50 ${updateQuantile(0.5).toFixed(3)} ms, p95 ${updateQuantile(0.95).toFixed(3)} ms, max ${updateQuantile(1).toFixed(3)} ms`,
);
console.error(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
