#!/usr/bin/env node
// Knowledge that lasts: its benchmark.
//
//   npm run build && node scripts/bench-knowledge.mjs [--only latency|coverage] [--entries 10000] [--prompts 500] [--seed 1]
//     [--locomo <shared bench>/locomo [--observer-config <.sylkrc>] [--memory-budget 8000]] [--json <file>]
//
// Part 1: retrieval and prompt assembly latency (target p95 < 10 ms with 10,000 entries).
//   A temp project (the real `openProject`, SYLK_KNOWLEDGE_ENABLED=true) is filled with --entries
//   generated knowledge items (seeded; no data set) through `services.knowledge.save`, the path
//   `save_knowledge` and `sylk memory add` take (secrets masked, terms counted, the row and its
//   document in the "knowledge" full-text collection): user knowledge (rules, preferences,
//   definitions, facts), agent learnings, skill patterns and external knowledge, 50–400 characters
//   each, words from an engineering vocabulary drawn by a Zipf law plus rare project identifiers.
//   The fill time is reported.
//   Measured: `SessionKnowledge.systemContextFor(prompt, tools)`, what runs before every model call
//   with knowledge on (keyword extraction, the LayerRetriever over the prompt's seven layers with
//   the store's ranked search per knowledge layer and its `uses` update, the tool layer over 25
//   descriptors, pending inquiries, `assemblePrompt`), for --prompts seeded prompts: "broad" ones
//   (common words, which match much of the store), "narrow" ones (a rare identifier or two, a few
//   items) and "none" ones (words the store does not hold, or only stop words), after a warm-up of
//   50 other prompts. p50/p95/p99/max, overall and per kind.
//   Baselines in the same run, interleaved prompt by prompt (the order alternating): the same
//   prompts against a 100-item store (the first 100 items of the same sequence), and a plain SQL
//   `LIKE '%keyword%'` scan of the knowledge rows per keyword (a plain CONTAINS, unranked, no
//   assembly).
//   Stages (a second pass, the store's methods wrapped to time them): the store's ranked search,
//   its `uses` update, and the rest (keywords, retriever, tool layer, inquiries, assembly);
//   `extractKeywords` alone is timed on its own.
//
// Part 2: memory coverage on LoCoMo, answer-bearing and at equal tokens (--locomo <dir> with turns.jsonl and
//   queries.jsonl, five conversations of snap-research/LoCoMo; category 5 excluded): scripts/lib/locomo-memory.mjs
//   runs each conversation through the real ObservationBuffer and scores the memory it leaves against the most recent
//   turns, every k-th sentence and random sentences given the same tokens; scripts/lib/memory-coverage.mjs defines
//   the measure. Reported for the development and held-out conversations (DEVELOPMENT_CONVERSATIONS below).
//   --memory-budget N: the memory's tokens (8,000, the budget; the product's default is 4,000).
//   --observer-config <file>: a user's .sylkrc naming the observer's model (`model`, `observationalMemory.provider`
//   and `.model`; keys from the environment as `sylk` reads them); without it the extractive observer writes the notes.
//   Without --locomo: "memory coverage: not measured (pass --locomo <dir>)".
//
//   --only latency|coverage runs one part.
//
// Results go to stdout as markdown, and with --json to that file.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { measureMemoryCoverage, printMemoryCoverage } from "./lib/locomo-memory.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    entries: { type: "string", default: "10000" },
    prompts: { type: "string", default: "500" },
    seed: { type: "string", default: "1" },
    json: { type: "string" },
    locomo: { type: "string" },
    "observer-config": { type: "string" },
    "memory-budget": { type: "string", default: "8000" },
    only: { type: "string" },
  },
});
const ONLY = values.only;
const ENTRIES = Number(values.entries);
const PROMPTS = Number(values.prompts);
const SEED = Number(values.seed);
const BASELINE_ENTRIES = 100;
const WARM_UP = 50;
if (
  !Number.isInteger(ENTRIES) ||
  ENTRIES < 1 ||
  !Number.isInteger(PROMPTS) ||
  PROMPTS < 1 ||
  !Number.isInteger(SEED) ||
  !(Number.isInteger(Number(values["memory-budget"])) && Number(values["memory-budget"]) >= 100) ||
  (ONLY !== undefined && ONLY !== "latency" && ONLY !== "coverage")
) {
  console.error(
    "usage: node scripts/bench-knowledge.mjs [--only latency|coverage] [--entries N] [--prompts N] [--seed N] [--locomo <dir> [--observer-config <file>] [--memory-budget N]] [--json <file>]",
  );
  process.exit(2);
}

const { openProject } = await import(join(repo, "dist/src/app/project-services.js"));
const { SessionKnowledge } = await import(join(repo, "dist/src/knowledge/session/session-knowledge.js"));
const { extractKeywords, KEYWORD_STOP_WORDS } = await import(join(repo, "dist/src/knowledge/extract-keywords.js"));
const { createProvider } = await import(join(repo, "dist/src/llm/create-provider.js"));
const { observerFor } = await import(join(repo, "dist/src/knowledge/session/observer-provider.js"));
const { ObservationBuffer } = await import(join(repo, "dist/src/knowledge/session/observation-buffer.js"));
const { assemblePrompt, selectMemory } = await import(join(repo, "dist/src/knowledge/assemble-prompt.js"));
const { estimateTokens } = await import(join(repo, "dist/src/tokens/estimate-tokens.js"));
/** How the extractive observer splits a message into sentences (12-400 characters each): what the coverage match compares. */
const { sentencesOf } = await import(join(repo, "dist/src/knowledge/observer.js"));

// ---------------------------------------------------------------------------------------------
// Seeded generation

/** mulberry32: a small seeded PRNG, so every run of a seed builds the same store and prompts. */
function rng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Engineering words, most common first: drawn by a Zipf law (rank r with weight 1/r). */
const VOCABULARY = `
test build config error api file module function type cache database server request response deploy
branch commit release package dependency script log service client query index schema migration user
token session timeout retry network endpoint route handler middleware component state event queue worker
job pipeline container image cluster node environment variable secret key permission role auth login
password certificate proxy port host domain storage bucket upload download stream buffer memory cpu thread
process signal lock transaction rollback constraint column table row field record model view controller
template render style layout theme font icon button form input validation parser lexer compiler linter
formatter bundler transpiler runtime interpreter debugger profiler benchmark coverage fixture mock stub
snapshot assertion suite runner reporter watcher plugin extension hook callback promise async await
generator iterator closure decorator interface class struct enum union tuple array map set list stack heap
pointer reference value string integer float boolean null undefined exception panic crash leak deadlock
race mutex semaphore channel socket websocket http https grpc graphql rest json yaml toml xml csv protobuf
encoding decoding compression encryption hashing signature checksum version semver changelog tag artifact
registry mirror tarball lockfile workspace monorepo submodule vendor license readme docs comment annotation
typescript javascript python rust golang java kotlin swift ruby bash shell zsh docker kubernetes terraform
ansible nginx postgres sqlite redis kafka rabbitmq elasticsearch prometheus grafana sentry datadog webpack
vite esbuild rollup babel eslint prettier biome jest vitest mocha playwright cypress storybook react vue
svelte angular express fastify nextjs remote origin upstream rebase merge conflict cherry-pick bisect stash
hotfix feature refactor cleanup rename deprecate remove upgrade downgrade patch minor major breaking
backward compatible flaky slow fast latency throughput p95 quota limit rate throttle backoff jitter circuit
fallback replica shard partition leader follower election consensus snapshot wal vacuum analyze explain
plan cost estimate budget window context prompt embedding vector rank score bm25 tokenizer stemmer
`
  .trim()
  .split(/\s+/);
const ZIPF = (() => {
  const weights = VOCABULARY.map((_, rank) => 1 / (rank + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  let sum = 0;
  return weights.map((weight) => (sum += weight / total));
})();
const zipfWord = (random) => {
  const target = random();
  let low = 0;
  let high = ZIPF.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ZIPF[mid] < target) low = mid + 1;
    else high = mid;
  }
  return VOCABULARY[low];
};
const pick = (random, list) => list[Math.floor(random() * list.length)];

/** Rare project identifiers (a module, a flag, a table): each in a handful of items, what "narrow" prompts ask about. */
const RARE = (() => {
  const random = rng(SEED * 7919 + 17);
  const prefixes = [
    "ledger",
    "invoice",
    "tenant",
    "billing",
    "payout",
    "refund",
    "ingest",
    "export",
    "audit",
    "onboarding",
    "catalog",
    "pricing",
    "inventory",
    "shipment",
    "webhook",
    "scheduler",
    "notifier",
    "reconciler",
  ];
  const suffixes = [
    "sync",
    "guard",
    "batcher",
    "resolver",
    "mapper",
    "cursor",
    "limiter",
    "gateway",
    "adapter",
    "registry",
    "sweeper",
    "backfill",
    "watchdog",
    "splitter",
  ];
  const names = new Set();
  while (names.size < 1500) names.add(`${pick(random, prefixes)}_${pick(random, suffixes)}${Math.floor(random() * 40)}`);
  return [...names];
})();

/** Words no item holds: what "none" prompts are made of. */
const ABSENT =
  "tomato basil trellis compost mulch seedling orchard vineyard sourdough croissant espresso saffron paprika cinnamon lavender tulip orchid maple walnut harbor lighthouse glacier canyon meadow".split(
    " ",
  );

const FILLERS = ["the", "a", "when", "for", "with", "in", "on", "before", "after", "and", "of", "to"];

function phrase(random, words) {
  const out = [];
  for (let i = 0; i < words; i++) {
    if (i > 0 && random() < 0.45) out.push(pick(random, FILLERS));
    out.push(zipfWord(random));
  }
  return out.join(" ");
}

const FRAMES = {
  rule: (random) =>
    `${pick(random, ["Always", "Never", "You must", "Do not"])} ${phrase(random, 3)} ${pick(random, ["when", "unless", "before", "after"])} ${phrase(random, 3)}.`,
  preference: (random) => `Prefer ${phrase(random, 2)} over ${phrase(random, 2)} for ${phrase(random, 3)}.`,
  definition: (random) => `"${zipfWord(random)} ${zipfWord(random)}" means the ${phrase(random, 3)} that ${phrase(random, 3)}.`,
  fact: (random) =>
    `The ${phrase(random, 2)} ${pick(random, ["runs on", "lives in", "depends on", "is owned by", "is configured in"])} ${phrase(random, 3)}.`,
  learning: (random) =>
    `When ${pick(random, ["run_command", "edit_file", "read_file", "grep", "write_file"])} failed with "${phrase(random, 4)}", this worked: ${phrase(random, 4)}.`,
  skill: (random) =>
    `${pick(random, ["Composite", "Script", "Template"])} skill: ${phrase(random, 4)}; steps: ${phrase(random, 3)}, then ${phrase(random, 3)}.`,
  external: (random) =>
    `From the ${pick(random, ["vendor docs", "RFC", "team wiki", "upstream changelog"])}: ${phrase(random, 4)} ${pick(random, ["requires", "replaces", "conflicts with"])} ${phrase(random, 3)}.`,
};

/** The `index`-th item of the sequence for this seed (so the 100-item store holds the first 100 of the 10,000). */
function generateItems(count, seed) {
  const random = rng(seed);
  const items = [];
  for (let index = 0; index < count; index++) {
    const roll = random();
    const length = 50 + Math.floor(random() * 351);
    let layer;
    let kind;
    let frame;
    const extra = {};
    if (roll < 0.7) {
      layer = "user_knowledge";
      kind = pick(random, ["rule", "preference", "definition", "fact"]);
      frame = FRAMES[kind];
      extra.source = random() < 0.6 ? "user" : "agent";
      extra.category = pick(random, ["style", "tooling", "architecture", "process", "domain", null]);
    } else if (roll < 0.85) {
      layer = "agent_learnings";
      kind = "learning";
      frame = FRAMES.learning;
      extra.source = "agent";
      extra.confidence = Math.round((0.1 + random() * 0.85) * 100) / 100; // some below the shown 0.2
      extra.details = {
        tool: "run_command",
        signature: `sig-${index}`,
        successes: 1 + Math.floor(random() * 5),
        failures: Math.floor(random() * 3),
      };
    } else if (roll < 0.93) {
      layer = "skill_patterns";
      kind = pick(random, ["composite", "script", "template"]);
      frame = FRAMES.skill;
      extra.source = "agent";
      extra.details = { definition: { steps: [] } };
    } else {
      layer = "external_knowledge";
      kind = "reference";
      frame = FRAMES.external;
      extra.source = "agent";
    }
    let content = frame(random);
    if (random() < 0.35) content += ` See ${pick(random, RARE)}.`;
    while (content.length < length) content += ` ${frame(random)}`;
    if (content.length > 400) content = `${content.slice(0, 399).replace(/\s+\S*$/, "")}.`;
    const key = `${kind}: ${phrase(random, 2 + Math.floor(random() * 2))}`.slice(0, 80);
    items.push({ layer, kind, key, content, ...extra });
  }
  return items;
}

/**
 * Prompts as a user types them: broad (common words), narrow (a rare identifier; the full-text index also
 * splits it into its parts, `ledger_sync12` → `ledger`, `sync`, each in a few per cent of the items),
 * none (words the store does not hold, or stop words only: no keyword, no search).
 */
function generatePrompts(count, seed) {
  const random = rng(seed);
  const prompts = [];
  for (let index = 0; index < count; index++) {
    const roll = random();
    if (roll < 0.4) {
      const common = () => VOCABULARY[Math.floor(random() * 40)];
      const text = pick(random, [
        () => `Why does the ${common()} ${common()} fail after the ${common()} change?`,
        () => `Add a ${common()} for the ${common()} ${common()} and update the ${common()}.`,
        () => `Please fix the ${common()} ${common()} in the ${common()} ${common()}`,
        () => `How do we ${common()} the ${common()} without breaking the ${common()}?`,
      ])();
      prompts.push({ kind: "broad", text });
    } else if (roll < 0.8) {
      const rare = pick(random, RARE);
      const text = pick(random, [
        () => `What does ${rare} do?`,
        () => `Rename ${rare} to ${pick(random, RARE)} everywhere.`,
        () => `The ${rare} is stuck again, can you look at it?`,
        () => `Who calls ${rare}?`,
      ])();
      prompts.push({ kind: "narrow", text });
    } else {
      const text =
        random() < 0.25
          ? pick(random, ["Can you do it?", "Why is that so?", "Do it again, please.", "What about them?"])
          : `What about the ${pick(random, ABSENT)} and the ${pick(random, ABSENT)} ${pick(random, ABSENT)}?`;
      prompts.push({ kind: "none", text });
    }
  }
  return prompts;
}

/** 25 descriptors: Sylk's built-in and role tools, and three skill tools. */
const TOOLS = [
  ["read_file", "Read a file of the project, or a range of its lines."],
  ["write_file", "Create or overwrite a file with the given content."],
  ["edit_file", "Replace an exact string in a file with another."],
  ["list_files", "List the files under a directory, respecting ignore rules."],
  ["grep", "Search the project's files for a regular expression."],
  ["search_codebase", "Ranked search of the project's code: keywords and meaning."],
  ["run_command", "Run a shell command in the sandbox and return its output."],
  ["search_history", "Search everything said and done in past sessions."],
  ["get_turn_range", "Read a range of turns of a session, byte for byte."],
  ["retrieve_context", "Bring back content a reference marker stands for."],
  ["todo_write", "Write the session's task list."],
  ["delegate", "Hand a task to a sub-agent of a given role."],
  ["consult_librarian", "Ask the librarian to explore and answer with sources."],
  ["share_context", "Return an answer with the excerpts it rests on."],
  ["route_to_agent", "Route the user's prompt to the agent that fits it."],
  ["submit_plan", "Submit the pipeline's plan."],
  ["submit_design", "Submit the pipeline's design."],
  ["report_issues", "Report the review's issues."],
  ["report_test_results", "Report the test stage's results."],
  ["save_knowledge", "Save a rule, preference, definition or fact that lasts across sessions."],
  ["search_knowledge", "Search the knowledge kept across sessions."],
  ["delete_knowledge", "Delete a knowledge item."],
  ["record_inquiry", "Record a question for the user when knowledge is missing."],
  ["create_skill", "Create a composite, script or template skill."],
  ["run_skill", "Run a skill with arguments."],
].map(([name, description]) => ({ name, description }));

// ---------------------------------------------------------------------------------------------
// The stores

const base = mkdtempSync(join(tmpdir(), "sylk-bench-knowledge-"));
const opened = [];
/** Connections the `LIKE` baseline opens beside the services. */
const connections = [];

async function openStore(name, count) {
  const root = join(base, name);
  mkdirSync(root, { recursive: true });
  const env = {
    ...process.env,
    HOME: base,
    SYLK_HOME: join(base, "home"),
    SYLK_KNOWLEDGE_ENABLED: "true",
    SYLK_CONTEXT_PREFETCH: "false",
    SYLK_LEARNING_ENABLED: "false",
  };
  const filling = openProject({ root, env });
  if (!filling.loadedConfig.config.knowledge.enabled) throw new Error("SYLK_KNOWLEDGE_ENABLED=true did not turn knowledge on");
  const items = generateItems(count, SEED);
  const started = performance.now();
  for (const item of items) filling.knowledge.save(item);
  const fillMs = performance.now() - started;
  // The knowledge was saved in earlier sessions: the measured session opens the project afresh.
  await filling.close();
  const opening = performance.now();
  const services = openProject({ root, env });
  const openMs = performance.now() - opening;
  opened.push(services);
  const config = services.loadedConfig.config;
  const session = new SessionKnowledge(services, config, () => "bench-session");
  // The baseline reads the table as any SQL client would: on a connection of its own.
  const sql = new Database(services.paths.database, { readonly: true });
  connections.push(sql);
  const like = sql.prepare("SELECT doc FROM knowledge_items WHERE key LIKE ? ESCAPE '\\' OR content LIKE ? ESCAPE '\\'");
  return { name, count, services, session, fillMs, openMs, chars: items.reduce((sum, item) => sum + item.content.length, 0), like };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1),
    mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
  };
};
const escapeLike = (text) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** One timed `systemContextFor`. */
async function timeContext(store, prompt) {
  const started = performance.now();
  const context = await store.session.systemContextFor(prompt, TOOLS);
  return { ms: performance.now() - started, chars: context?.length ?? 0 };
}

/** A plain CONTAINS: each keyword scanned with LIKE over every row; the number of distinct rows matched. */
function timeLike(store, prompt) {
  const started = performance.now();
  const rows = new Set();
  for (const keyword of extractKeywords(prompt) ?? []) {
    const pattern = `%${escapeLike(keyword)}%`;
    for (const row of store.like.all(pattern, pattern)) rows.add(row.doc);
  }
  return { ms: performance.now() - started, rows: rows.size };
}

/** Part 1: the latency of `systemContextFor` with --entries items, against 100 items and a LIKE scan. */
async function latency() {
  console.error(`filling ${ENTRIES} items (seed ${SEED}) ...`);
  const big = await openStore("large", ENTRIES);
  console.error(`  ${(big.fillMs / 1000).toFixed(1)} s`);
  const small = await openStore("small", Math.min(BASELINE_ENTRIES, ENTRIES));

  const prompts = generatePrompts(PROMPTS, SEED * 31 + 1);
  const warmUp = generatePrompts(WARM_UP, SEED * 31 + 2);

  // The first call after opening the project (cold: nothing compiled, the knowledge index not loaded yet), reported apart.
  const first = await timeContext(big, (warmUp.find((prompt) => prompt.kind === "broad") ?? warmUp[0]).text);
  for (const prompt of warmUp) {
    await timeContext(big, prompt.text);
    await timeContext(small, prompt.text);
    timeLike(big, prompt.text);
  }

  // Measured pass: the 10,000-item store, the 100-item store and the LIKE scan, interleaved per prompt, the order alternating.
  const results = prompts.map((prompt) => ({ kind: prompt.kind, text: prompt.text }));
  for (let index = 0; index < prompts.length; index++) {
    const text = prompts[index].text;
    const result = results[index];
    const steps = [
      async () => Object.assign(result, { large: await timeContext(big, text) }),
      async () => Object.assign(result, { small: await timeContext(small, text) }),
      async () => Object.assign(result, { like: timeLike(big, text) }),
    ];
    if (index % 2 === 1) steps.reverse();
    for (const step of steps) await step();
  }

  // Stage pass: the large store's search and `uses` update wrapped and timed; keywords alone timed on their own.
  const store = big.services.knowledge;
  const stage = { search: 0, used: 0 };
  const wrap = (name) => {
    const original = store[name].bind(store);
    store[name] = (...args) => {
      const started = performance.now();
      try {
        return original(...args);
      } finally {
        stage[name] += performance.now() - started;
      }
    };
  };
  wrap("search");
  wrap("used");
  const stages = [];
  for (const prompt of prompts) {
    stage.search = 0;
    stage.used = 0;
    const { ms } = await timeContext(big, prompt.text);
    const keywordsStarted = performance.now();
    extractKeywords(prompt.text);
    const keywords = performance.now() - keywordsStarted;
    stages.push({ total: ms, search: stage.search, used: stage.used, keywords, rest: ms - stage.search - stage.used });
  }

  // -------------------------------------------------------------------------------------------
  // Report

  const f = (ms) => `${ms.toFixed(2)} ms`;
  const kinds = ["broad", "narrow", "none"];
  const of = (kind) => (kind ? results.filter((r) => r.kind === kind) : results);
  const report = {
    entries: ENTRIES,
    prompts: PROMPTS,
    seed: SEED,
    tools: TOOLS.length,
    fill: { entries: ENTRIES, ms: big.fillMs, reopenMs: big.openMs, perItemMs: big.fillMs / ENTRIES, contentChars: big.chars },
    firstCallMs: first.ms,
    large: { all: summary(of().map((r) => r.large.ms)) },
    small: { entries: small.count, all: summary(of().map((r) => r.small.ms)) },
    like: { all: summary(of().map((r) => r.like.ms)) },
    byKind: {},
    stages: {
      totalMs: summary(stages.map((s) => s.total)),
      searchMs: summary(stages.map((s) => s.search)),
      usedMs: summary(stages.map((s) => s.used)),
      restMs: summary(stages.map((s) => s.rest)),
      keywordsMs: summary(stages.map((s) => s.keywords)),
      share: (() => {
        const total = stages.reduce((sum, s) => sum + s.total, 0);
        const share = (key) => stages.reduce((sum, s) => sum + s[key], 0) / total;
        return { search: share("search"), used: share("used"), rest: share("rest"), keywords: share("keywords") };
      })(),
    },
  };
  for (const kind of kinds) {
    const rows = of(kind);
    report.byKind[kind] = {
      prompts: rows.length,
      large: summary(rows.map((r) => r.large.ms)),
      small: summary(rows.map((r) => r.small.ms)),
      like: summary(rows.map((r) => r.like.ms)),
      withContext: rows.filter((r) => r.large.chars > 0).length,
      meanContextChars: rows.reduce((sum, r) => sum + r.large.chars, 0) / Math.max(1, rows.length),
      meanLikeRows: rows.reduce((sum, r) => sum + r.like.rows, 0) / Math.max(1, rows.length),
    };
  }

  console.log(`## Knowledge retrieval and prompt assembly (issue 15, part 1), seed ${SEED}\n`);
  console.log(
    `Fill: ${ENTRIES.toLocaleString("en")} items through \`knowledge.save\` in ${(big.fillMs / 1000).toFixed(2)} s ` +
      `(${f(big.fillMs / ENTRIES)} an item; ${(big.chars / ENTRIES).toFixed(0)} characters of content on average).\n`,
  );
  console.log(`\`systemContextFor(prompt, ${TOOLS.length} tools)\`, ${PROMPTS} prompts after ${WARM_UP} warm-up prompts:\n`);
  console.log("| prompts | n | p50 | p95 | p99 | max | with an augmentation | mean augmentation | rows a LIKE scan matches |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const line = (label, s, rows) => {
    const withContext = rows.filter((r) => r.large.chars > 0).length;
    const meanChars = rows.reduce((sum, r) => sum + r.large.chars, 0) / Math.max(1, rows.length);
    const meanRows = rows.reduce((sum, r) => sum + r.like.rows, 0) / Math.max(1, rows.length);
    console.log(
      `| ${label} | ${s.n} | ${f(s.p50)} | ${f(s.p95)} | ${f(s.p99)} | ${f(s.max)} | ${withContext} | ${meanChars.toFixed(0)} chars | ${meanRows.toFixed(0)} |`,
    );
  };
  line(`**all, ${ENTRIES.toLocaleString("en")} items**`, report.large.all, results);
  for (const kind of kinds) line(kind, report.byKind[kind].large, of(kind));
  console.log(
    `\nThe first call after opening the project (cold: the knowledge index loads): ${f(first.ms)}; opening the project took ${f(big.openMs)}.\n`,
  );

  console.log(`Baselines, the same prompts in the same pass (interleaved):\n`);
  console.log("| | p50 | p95 | p99 | max |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  const row = (label, s) => console.log(`| ${label} | ${f(s.p50)} | ${f(s.p95)} | ${f(s.p99)} | ${f(s.max)} |`);
  row(`\`systemContextFor\`, ${ENTRIES.toLocaleString("en")} items`, report.large.all);
  row(`\`systemContextFor\`, ${small.count} items`, report.small.all);
  row(`SQL \`LIKE\` scan per keyword, ${ENTRIES.toLocaleString("en")} rows (no ranking, no assembly)`, report.like.all);
  for (const kind of kinds) {
    const k = report.byKind[kind];
    console.log(`| ${kind}: ${ENTRIES} / ${small.count} items / LIKE, p95 | ${f(k.large.p95)} | ${f(k.small.p95)} | ${f(k.like.p95)} | |`);
  }
  const st = report.stages;
  console.log(`\nStages (a second pass, ${ENTRIES.toLocaleString("en")} items; share of the summed time):\n`);
  console.log("| stage | share | p50 | p95 |");
  console.log("| --- | ---: | ---: | ---: |");
  console.log(`| **the whole call** (this pass: no baseline between calls) | 100 % | ${f(st.totalMs.p50)} | ${f(st.totalMs.p95)} |`);
  console.log(
    `| store search (4 layers: BM25 per keyword, rows read) | ${(st.share.search * 100).toFixed(0)} % | ${f(st.searchMs.p50)} | ${f(st.searchMs.p95)} |`,
  );
  console.log(`| \`uses\` update of the items shown | ${(st.share.used * 100).toFixed(0)} % | ${f(st.usedMs.p50)} | ${f(st.usedMs.p95)} |`);
  console.log(
    `| the rest (keywords, retriever, tools, inquiries, assembly) | ${(st.share.rest * 100).toFixed(0)} % | ${f(st.restMs.p50)} | ${f(st.restMs.p95)} |`,
  );
  console.log(
    `| of which \`extractKeywords\` (timed alone) | ${(st.share.keywords * 100).toFixed(1)} % | ${f(st.keywordsMs.p50)} | ${f(st.keywordsMs.p95)} |`,
  );
  const target = report.large.all.p95 < 10;
  console.log(
    `\nTarget p95 < 10 ms with ${ENTRIES.toLocaleString("en")} entries: ${target ? "met" : "NOT met"} (${f(report.large.all.p95)}).\n`,
  );
  return report;
}

// ---------------------------------------------------------------------------------------------
// PART 2: LoCoMo evidence coverage with the extractive observer.

/**
 * The LoCoMo conversations split into development (the observer's rules may be changed while looking at these)
 * and held-out (measured the same way, never looked at while changing the rules). Fixed before any change to the
 * observer or the measure: the first three conversations of turns.jsonl in its order, 383 questions, and the last
 * two, 377 questions, a split by position that no score chose.
 */
const DEVELOPMENT_CONVERSATIONS = ["conv-26", "conv-30", "conv-41"];
const HELD_OUT_CONVERSATIONS = ["conv-42", "conv-43"];

const output = {};
try {
  if (ONLY !== "coverage") Object.assign(output, await latency());
  if (ONLY !== "latency") {
    if (values.locomo) {
      console.error(`memory coverage on ${values.locomo} ...`);
      const modules = {
        openProject,
        ObservationBuffer,
        assemblePrompt,
        selectMemory,
        estimateTokens,
        sentencesOf,
        KEYWORD_STOP_WORDS,
        createProvider,
        observerFor,
      };
      const observerConfig = values["observer-config"] ? readFileSync(resolve(values["observer-config"]), "utf8") : undefined;
      const split = { development: DEVELOPMENT_CONVERSATIONS, "held-out": HELD_OUT_CONVERSATIONS };
      const budget = Number(values["memory-budget"]);
      const result = await measureMemoryCoverage({ dir: resolve(values.locomo), base, modules, observerConfig, split, budget });
      printMemoryCoverage(result);
      output.memoryCoverage = result;
    } else {
      console.log("## Memory coverage on LoCoMo (issue 15, part 2)\n");
      console.log("memory coverage: not measured (pass --locomo <dir>)");
      output.memoryCoverage = null;
    }
  }
  if (values.json) {
    mkdirSync(dirname(resolve(values.json)), { recursive: true });
    writeFileSync(values.json, `${JSON.stringify(output, null, 2)}\n`);
  }
} finally {
  for (const db of connections) db.close();
  for (const services of opened) await services.close();
  rmSync(base, { recursive: true, force: true });
}
