// Memory on LoCoMo, measured by what it keeps: part 2 of scripts/bench-knowledge.mjs.
//
// Each conversation is one session: its turns (session by session) become message rows, and the real
// ObservationBuffer over the real content store of a temp project (the extractive observer, or the model a
// configuration names) is signalled after every second turn and waited for. At the end, the memory is the
// Conversation Memory section `assemblePrompt` builds from the session's reflections and observations within 8,000
// tokens. Each trivial baseline then gets exactly the memory's tokens (see memory-coverage.mjs for the count):
// the most recent turns, every k-th sentence, and random sentences (seeds 1-5). A question is covered when the
// context holds one of its answer-bearing evidence sentences (memory-coverage.mjs has the exact definition).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  answerBearing,
  answerWords,
  contextTokens,
  everyKthWithin,
  holdsAny,
  normalise,
  randomWithin,
  recentWithin,
} from "./memory-coverage.mjs";

/** The memory budget of this benchmark unless told otherwise (the issue's; the product's default `memoryTokenBudget` is 4,000). */
export const COVERAGE_BUDGET = 8_000;
/** The random baseline's seeds: its figure is their mean. */
export const RANDOM_SEEDS = [1, 2, 3, 4, 5];

/** A LoCoMo turn as the session's message says it (the same text as scripts/bench-locomo.mjs indexes). */
export const turnText = (turn) => `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares an image: ${turn.blip_caption}]` : ""}`;

const readJsonl = (dir, name) =>
  readFileSync(join(dir, name), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

/**
 * Runs the measure over the conversations of `dir` (turns.jsonl, queries.jsonl; category 5 excluded).
 * `modules`: the built product's `openProject`, `ObservationBuffer`, `assemblePrompt`, `selectMemory`,
 * `estimateTokens`, `sentencesOf`, `KEYWORD_STOP_WORDS`, `createProvider` and `observerFor`.
 * `observerConfig`: a user's `.sylkrc` text naming the observer's model, or undefined for the extractive observer.
 * `split`: conversation ids by name (development, held-out); conversations in none are reported under "other".
 */
export async function measureMemoryCoverage({ dir, base, modules, observerConfig, split, budget = COVERAGE_BUDGET }) {
  const turns = readJsonl(dir, "turns.jsonl");
  const queries = readJsonl(dir, "queries.jsonl").filter((query) => query.category !== 5);
  const conversations = [...new Set(turns.map((turn) => turn.conv_id))];
  const root = join(base, "locomo");
  if (observerConfig !== undefined) writeFileSync(join(base, ".sylkrc"), observerConfig);
  const env = { ...process.env, HOME: base, SYLK_HOME: join(base, "home"), SYLK_CONTEXT_PREFETCH: "false", SYLK_LEARNING_ENABLED: "false" };
  mkdirSync(root, { recursive: true });
  const services = modules.openProject({ root, env });
  try {
    const config = services.loadedConfig.config;
    const observer = observerConfig === undefined ? undefined : modelObserver(modules, config, env);
    const perConversation = [];
    const perQuestion = [];
    for (const conversation of conversations) {
      const convTurns = turns
        .filter((turn) => turn.conv_id === conversation)
        .sort((a, b) => a.session - b.session || a.turn_index - b.turn_index);
      const observed = await observeConversation({ services, modules, config, observer, conversation, convTurns, budget });
      const scored = scoreConversation({
        modules,
        conversation,
        convTurns,
        observed,
        budget,
        queries: queries.filter((query) => query.conv_id === conversation),
      });
      perConversation.push(scored.summary);
      perQuestion.push(...scored.rows);
      console.error(`  ${conversation}: ${convTurns.length} turns, ${scored.rows.length} questions`);
    }
    const groups = Object.entries(split).map(([name, ids]) => [name, ids]);
    const grouped = new Set(groups.flatMap(([, ids]) => ids));
    const other = conversations.filter((id) => !grouped.has(id));
    if (other.length > 0) groups.push(["other", other]);
    groups.push(["all", conversations]);
    const bySplit = Object.fromEntries(
      groups.map(([name, ids]) => [name, { conversations: ids, ...tally(perQuestion.filter((row) => ids.includes(row.conv_id))) }]),
    );
    const observerName = observer ? `${observer.name}:${observer.model}` : "extractive";
    return {
      budget,
      randomSeeds: RANDOM_SEEDS,
      observer: observerName,
      bySplit,
      conversations: perConversation,
      questions: perQuestion,
    };
  } finally {
    await services.close();
  }
}

/** The observer's model as the product resolves it from the configuration; a configuration that names none is an error. */
function modelObserver(modules, config, env) {
  const session = modules.createProvider(config.model, env);
  const observer = modules.observerFor(config, env, session.provider);
  if (!observer) throw new Error(`the observer configuration names no usable model: ${session.reason ?? "no provider"}`);
  return observer;
}

/** The conversation through the real ObservationBuffer: what it wrote along the way, and the memory at the end. */
async function observeConversation({ services, modules, config, observer, conversation, convTurns, budget }) {
  const memoryConfig = config.observationalMemory;
  const firstSpeaker = convTurns[0]?.speaker;
  const sessionId = `locomo-${conversation}`;
  const rows = [];
  const reports = [];
  // Every observation the buffer writes, before reflections condense and delete them: what the observer kept at all.
  const written = [];
  const store = {
    indexContents: async (inputs, ...rest) => {
      for (const input of inputs) if (input.contentType === "observation") written.push(input.content);
      return services.contentStore.indexContents(inputs, ...rest);
    },
    recentOfType: (...args) => services.contentStore.recentOfType(...args),
    deleteDerived: (...args) => services.contentStore.deleteDerived(...args),
  };
  const buffer = new modules.ObservationBuffer({
    store,
    sessionId,
    rows: () => rows,
    observer,
    // The product's settings, with this benchmark's memory budget (what the extractive reflector sizes its notes to).
    settings: { ...memoryConfig, memoryTokenBudget: budget },
    report: (message) => reports.push(message),
  });
  for (const [ordinal, turn] of convTurns.entries()) {
    // The conversation's first speaker is the user, the other the assistant (the observer's "User:" / "Assistant:"; the text keeps the name).
    const role = turn.speaker === firstSpeaker ? "user" : "assistant";
    rows.push({
      ordinal,
      message: { role, content: [{ type: "text", text: turnText(turn) }] },
      turn: ordinal,
      entryIds: [],
      evictedBy: null,
    });
    // A Sylk run is a prompt and its answer, and the buffer is signalled when a run ends: here after every second turn of a
    // session, after a session's last turn, and after the conversation's last.
    const next = convTurns[ordinal + 1];
    if (turn.turn_index % 2 === 1 || next === undefined || next.session !== turn.session) {
      buffer.signal();
      await buffer.settled();
    }
  }
  await buffer.close();
  // What SessionKnowledge.memory() reads, and what systemContextFor's assemblePrompt makes of it.
  const notes = (type) =>
    services.contentStore
      .recentOfType(sessionId, type, 200)
      .map((entry) => ({ content: entry.content, tokenCount: entry.tokenCount, createdAt: new Date(entry.timestamp) }));
  const memory = { reflections: notes("reflection"), observations: notes("observation") };
  const limits = {
    memoryTokenBudget: budget,
    maxReflectionsInContext: memoryConfig.maxReflectionsInContext,
    maxObservationsInContext: memoryConfig.maxObservationsInContext,
  };
  const selected = modules.selectMemory(memory, limits);
  return { memoryText: modules.assemblePrompt("", [], memory, limits), selected, memory, written, reports };
}

/** Every contestant's context for one conversation, each question scored against each, and the conversation's figures. */
function scoreConversation({ modules, conversation, convTurns, observed, queries, budget }) {
  const { estimateTokens, sentencesOf, KEYWORD_STOP_WORDS: stopWords } = modules;
  const memoryTokens = contextTokens(observed.memoryText, estimateTokens);
  const turnLines = convTurns.map(turnText);
  const sentenceLines = turnLines.flatMap((line) => sentencesOf(line));
  const contexts = {
    memory: observed.memoryText,
    recent: recentWithin(turnLines, memoryTokens, estimateTokens).join("\n"),
    everyK: everyKthWithin(sentenceLines, memoryTokens, estimateTokens).join("\n"),
    ...Object.fromEntries(
      RANDOM_SEEDS.map((seed) => [`random${seed}`, randomWithin(sentenceLines, memoryTokens, estimateTokens, seed).join("\n")]),
    ),
    recentFull: recentWithin(turnLines, budget, estimateTokens).join("\n"),
    observed: observed.written.join("\n"),
  };
  const normalised = Object.fromEntries(Object.entries(contexts).map(([name, text]) => [name, normalise(text)]));

  // Matchable sentences of each turn: the observer's sentences (12-400 characters) that no other turn of the conversation contains.
  const normalisedTurns = turnLines.map(normalise);
  const matchable = new Map(
    convTurns.map((turn, index) => [
      turn.dia_id,
      sentencesOf(turnLines[index]).filter((sentence) =>
        normalisedTurns.every((other, otherIndex) => otherIndex === index || !other.includes(normalise(sentence))),
      ),
    ]),
  );
  const speakers = [...new Set(convTurns.map((turn) => turn.speaker))];
  const rows = queries.map((query) => {
    const evidence = query.evidence.flatMap((id) => matchable.get(id) ?? []);
    const bearing = answerBearing(evidence, answerWords(query.answer, speakers, stopWords), stopWords);
    const row = { conv_id: conversation, query_id: query.query_id, category: query.category, answerable: bearing.length > 0 };
    for (const [name, text] of Object.entries(normalised)) row[name] = holdsAny(text, bearing);
    // The earlier, looser measure (any evidence sentence at all), for the memory.
    row.memoryAnyEvidence = holdsAny(normalised.memory, evidence);
    return row;
  });
  const tokens = Object.fromEntries(Object.entries(contexts).map(([name, text]) => [name, contextTokens(text, estimateTokens)]));
  return {
    rows,
    summary: {
      conv_id: conversation,
      turns: convTurns.length,
      conversationTokens: turnLines.reduce((sum, line) => sum + estimateTokens(line) + 1, 0),
      questions: rows.length,
      tokens,
      reflections: observed.selected.reflections.length,
      observations: observed.selected.observations.length,
      stored: { reflections: observed.memory.reflections.length, observations: observed.memory.observations.length },
      observationsWritten: observed.written.length,
      reports: observed.reports,
    },
  };
}

/** The shares of questions each contestant covers, the random baseline as the mean of its seeds, and memory against the best trivial one. */
export function tally(rows) {
  const n = rows.length;
  const share = (key) => (n > 0 ? rows.filter((row) => row[key]).length / n : 0);
  const randoms = RANDOM_SEEDS.map((seed) => share(`random${seed}`));
  const result = {
    questions: n,
    answerable: share("answerable"),
    memory: share("memory"),
    recent: share("recent"),
    everyK: share("everyK"),
    random: randoms.reduce((sum, value) => sum + value, 0) / randoms.length,
    randomMin: Math.min(...randoms),
    randomMax: Math.max(...randoms),
    recentFull: share("recentFull"),
    observed: share("observed"),
    memoryAnyEvidence: share("memoryAnyEvidence"),
  };
  const best = Math.max(result.recent, result.everyK, result.random);
  return { ...result, bestTrivial: best, ratio: best > 0 ? result.memory / best : null };
}

const pct = (value) => `${(value * 100).toFixed(1)} %`;
const times = (value) => (value === null ? "n/a" : `${value.toFixed(2)}×`);
const whole = (value) => Math.round(value).toLocaleString("en");

/** The result as markdown: one row per split, then one per conversation. */
export function printMemoryCoverage(result) {
  const { bySplit, conversations } = result;
  console.log(
    `## Memory coverage on LoCoMo, answer-bearing, at equal tokens (observer: ${result.observer}; memory budget ${result.budget.toLocaleString("en")} tokens)\n`,
  );
  console.log(
    `A question is covered when the context holds an evidence sentence sharing a content word with the answer. Each baseline gets the memory's tokens in its conversation; random is the mean of seeds ${result.randomSeeds.join(", ")} (their range in brackets). Category 5 excluded.\n`,
  );
  console.log(
    `| split | questions | answerable at all | **memory** | recent turns | every k-th sentence | random sentences | **memory / best trivial** | kept by the observer at all | recent turns at ${result.budget.toLocaleString("en")} | memory, any evidence sentence |`,
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const [name, t] of Object.entries(bySplit)) {
    console.log(
      `| ${name} (${t.conversations.join(", ")}) | ${t.questions} | ${pct(t.answerable)} | **${pct(t.memory)}** | ${pct(t.recent)} | ${pct(t.everyK)} | ${pct(t.random)} (${pct(t.randomMin)}–${pct(t.randomMax)}) | **${times(t.ratio)}** | ${pct(t.observed)} | ${pct(t.recentFull)} | ${pct(t.memoryAnyEvidence)} |`,
    );
  }
  console.log(
    "\n| conversation | turns (tokens) | questions | memory | recent | every k-th | random | ratio | tokens: memory / recent / every k-th / random 1 | notes in memory: reflections / observations (stored) |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const conv of conversations) {
    const t = tally(result.questions.filter((row) => row.conv_id === conv.conv_id));
    const k = conv.tokens;
    console.log(
      `| ${conv.conv_id} | ${conv.turns} (${whole(conv.conversationTokens)}) | ${conv.questions} | ${pct(t.memory)} | ${pct(t.recent)} | ${pct(t.everyK)} | ${pct(t.random)} | ${times(t.ratio)} | ${whole(k.memory)} / ${whole(k.recent)} / ${whole(k.everyK)} / ${whole(k.random1)} | ${conv.reflections} / ${conv.observations} (${conv.stored.reflections} / ${conv.stored.observations}) |`,
    );
  }
  const reports = conversations.flatMap((conv) => conv.reports);
  if (reports.length > 0) console.log(`\nThe buffer reported: ${reports.join("; ")}`);
  console.log("");
}
