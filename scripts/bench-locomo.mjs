#!/usr/bin/env node
// Long-conversation recall: each LoCoMo conversation is loaded as one session's
// history (every turn a content entry), then each question (category 5,
// adversarial, excluded) is (1) searched with search_history's hybrid search and
// (2) given to the prefetch QueryAugmenter with a 200k-token window, as if the
// user had just asked it. Reports recall@1/5/10 of an evidence turn, recall of
// all evidence at 10, and how often an evidence turn is injected (Tier A or B)
// within the 10 % budget.
//
//   npm run build && node scripts/bench-locomo.mjs --data <dir>
//
// --data holds turns.jsonl and queries.jsonl: five LoCoMo conversations
// (snap-research/LoCoMo), a directory of LoCoMo conversation files (docs/BENCHMARKS.md says which).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..");
const { values } = parseArgs({ options: { data: { type: "string" } } });
if (!values.data) {
  console.error("Usage: node scripts/bench-locomo.mjs --data <dir with turns.jsonl and queries.jsonl>");
  process.exit(2);
}
const { openProject } = await import(join(repo, "dist/src/app/project-services.js"));
const { createPrefetcher } = await import(join(repo, "dist/src/context/prefetch/create-prefetcher.js"));

const readJsonl = (name) =>
  readFileSync(join(values.data, name), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
const turns = readJsonl("turns.jsonl");
const queries = readJsonl("queries.jsonl").filter((query) => query.category !== 5);
const conversations = [...new Set(turns.map((turn) => turn.conv_id))];

const base = mkdtempSync(join(tmpdir(), "sylk-bench-locomo-"));
const totals = { questions: 0, r1: 0, r5: 0, r10: 0, all10: 0, injected: 0, injectedA: 0, injectedTokens: 0, searchMs: [] };

for (const conversation of conversations) {
  const root = join(base, conversation);
  mkdirSync(root, { recursive: true });
  const services = openProject({ root, env: { ...process.env, SYLK_HOME: join(base, "home"), HOME: base } });
  const sessionId = `locomo-${conversation}`;
  const byEntryId = new Map();
  for (const turn of turns.filter((candidate) => candidate.conv_id === conversation)) {
    const text = `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares an image: ${turn.blip_caption}]` : ""}`;
    const entry = await services.contentStore.indexContent({
      sessionId,
      agentId: "locomo",
      agentType: "conversation",
      contentType: turn.turn_index % 2 === 0 ? "user_prompt" : "agent_response",
      content: text,
      turnNumber: turn.turn_index + 1,
      metadata: { dia_id: turn.dia_id, session_date: turn.session_date },
    });
    byEntryId.set(entry.id, turn.dia_id);
  }
  const prefetcher = createPrefetcher({ services, sessionId, windowTokens: 200_000 });
  for (const query of queries.filter((candidate) => candidate.conv_id === conversation)) {
    const evidence = new Set(query.evidence);
    const started = performance.now();
    const outcome = await services.contentStore.search(query.question, { sessionId }, 10);
    totals.searchMs.push(performance.now() - started);
    const found = outcome.hits.map((hit) => byEntryId.get(hit.entry.id));
    const rank = found.findIndex((id) => evidence.has(id)) + 1;
    totals.questions++;
    if (rank === 1) totals.r1++;
    if (rank >= 1 && rank <= 5) totals.r5++;
    if (rank >= 1 && rank <= 10) totals.r10++;
    if ([...evidence].every((id) => found.includes(id))) totals.all10++;

    const augmented = await prefetcher.augment(query.question, 200_000);
    const injectedIds = [...augmented.excerpts, ...augmented.summaries].map((item) => byEntryId.get(item.entryId));
    if (injectedIds.some((id) => evidence.has(id))) totals.injected++;
    if (augmented.excerpts.some((item) => evidence.has(byEntryId.get(item.entryId)))) totals.injectedA++;
    totals.injectedTokens += augmented.tokensUsed;
  }
  await services.close();
}

const n = totals.questions;
const sorted = [...totals.searchMs].sort((a, b) => a - b);
const results = {
  questions: n,
  recall1: totals.r1 / n,
  recall5: totals.r5 / n,
  recall10: totals.r10 / n,
  allEvidence10: totals.all10 / n,
  prefetchInjected: totals.injected / n,
  prefetchInjectedTierA: totals.injectedA / n,
  prefetchTokensMean: totals.injectedTokens / n,
  searchP50Ms: sorted[Math.floor(sorted.length / 2)],
  searchP95Ms: sorted[Math.floor(sorted.length * 0.95)],
};
const f = (x) => x.toFixed(3);
console.log(`\nLoCoMo, ${conversations.length} conversations, ${n} questions (category 5 excluded)\n`);
console.log("| retrieval | R@1 | R@5 | R@10 | all evidence @10 |");
console.log("| --- | --- | --- | --- | --- |");
console.log("| plain BM25 (bench README) | 0.262 | 0.514 | 0.593 | 0.537 |");
console.log(
  `| sylk search_history (hybrid) | ${f(results.recall1)} | ${f(results.recall5)} | ${f(results.recall10)} | ${f(results.allEvidence10)} |`,
);
console.log(
  `\nPrefetch (200k window, 10 % budget): an evidence turn injected for ${f(results.prefetchInjected)} of questions (Tier A ${f(results.prefetchInjectedTierA)}), ${results.prefetchTokensMean.toFixed(0)} tokens injected on average.`,
);
console.log(`search_history latency: p50 ${results.searchP50Ms.toFixed(1)} ms, p95 ${results.searchP95Ms.toFixed(1)} ms`);
mkdirSync(join(repo, ".sylk-bench"), { recursive: true });
writeFileSync(join(repo, ".sylk-bench/locomo.json"), JSON.stringify(results, null, 2));
rmSync(base, { recursive: true, force: true });
