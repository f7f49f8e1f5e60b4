// The consultation benchmark's scenarios, scripts and scoring, as pure functions of the generated
// repository (scripts/lib/agents-repository.mjs): what an explorer calls, what the librarian answers
// when it is right, partly right or wrong, what the engineer does with that answer, whether its final
// answer is right, and what a librarian that errs at known rates costs and gets right on average.
import { FACT_TOPIC, linesOf } from "./agents-repository.mjs";

/** The numbers of reads an exploration takes, chosen before measuring: a quick question, the old fixed 12, a long hunt. */
export const READ_COUNTS = [6, 12, 24];
/** Lines a ranged read asks for: a function and its neighbours, not the whole file. */
export const READ_LINES = 30;
/** One search_codebase call before every this many reads (its default number of results). */
export const READS_PER_SEARCH = 8;
const QUERIES = [
  "how many times is a failed invoice charge retried",
  "invoice charge retry limit constant",
  "retry count before an invoice is uncollectable",
];

export const OUTCOMES = ["correct", "partial", "wrong"];
/** What the engineer does with an answer: take a cited claim as it is, or read the cited lines first. */
export const POLICIES = ["trust", "verify"];
/** The librarian's error rates, chosen before measuring: share of answers right, partial (the file, not the constant) and wrong (the decoy). */
export const PROFILES = [
  { name: "100/0/0", rates: { correct: 1, partial: 0, wrong: 0 } },
  { name: "80/10/10", rates: { correct: 0.8, partial: 0.1, wrong: 0.1 } },
  { name: "60/20/20", rates: { correct: 0.6, partial: 0.2, wrong: 0.2 } },
];

/** Every run the table needs: for each number of reads, the engineer alone, and each policy against each answer. */
export function scenarioRuns(readCounts = READ_COUNTS) {
  const runs = [];
  for (const reads of readCounts) {
    runs.push({ reads, mode: "self" });
    for (const policy of POLICIES) for (const outcome of OUTCOMES) runs.push({ reads, mode: "consult", policy, outcome });
  }
  return runs;
}

const call = (name, input) => ({ name, input });
const readRange = (path, offset, limit = READ_LINES) => call("read_file", { path, offset, limit });

/**
 * An exploration of `reads` ranged reads: a search_codebase call before every READS_PER_SEARCH reads, then
 * READ_LINES-line windows of the repository's seeded files, the fact's window (its comment and constant
 * in the middle) at a seeded place among them. The reads are scripted, not taken from the search results,
 * so that every scenario reads the same ranges whatever the ranker returns.
 */
export function explorationCalls(repository, reads) {
  const { order, starts, factPosition, truth } = repository;
  if (!Number.isInteger(reads) || reads < 1 || reads > order.length + 1) throw new RangeError(`reads must be 1..${order.length + 1}`);
  const windows = order.slice(0, reads - 1).map((path, index) => readRange(path, starts[index]));
  windows.splice(Math.floor(factPosition * reads), 0, readRange(truth.path, truth.start - READ_LINES / 2 + 1));
  const calls = [];
  windows.forEach((read, index) => {
    if (index % READS_PER_SEARCH === 0)
      calls.push(call("search_codebase", { query: QUERIES[(index / READS_PER_SEARCH) % QUERIES.length], limit: READS_PER_SEARCH }));
    calls.push(read);
  });
  return calls;
}

/** `SYMBOL is VALUE: path:start-end`, the form every scripted claim takes. */
export const claimText = ({ symbol, value, path, start, end }) => `${symbol} is ${value}: ${path}:${start}-${end}`;

/** What the librarian passes to share_context for each outcome: the fact, the file without the constant, or the decoy. */
export function librarianShare(outcome, { truth, decoy }) {
  const excerpt = (fact) => ({ path: fact.path, start_line: fact.start, end_line: fact.end });
  if (outcome === "correct")
    return {
      answer: `${claimText(truth)} (the only definition among the files read).`,
      sources: [excerpt(truth)],
      confidence: 0.9,
      completeness: 1,
    };
  if (outcome === "partial")
    return {
      answer: `The invoice retry policy lives in ${truth.path}; I did not find the retry count itself in the lines I read.`,
      sources: [{ path: truth.path, start_line: 1, end_line: 3 }],
      confidence: 0.6,
      completeness: 0.4,
    };
  if (outcome === "wrong")
    return {
      answer: `${claimText(decoy)} (the retry limit among the files read).`,
      sources: [excerpt(decoy)],
      confidence: 0.8,
      completeness: 1,
    };
  throw new RangeError(`unknown outcome ${outcome}`);
}

const CLAIM = /\b([A-Z][A-Z0-9_]+) is (\d+): ([\w./-]+\.ts):(\d+)-(\d+)/;
const PATH = /\b(src\/[\w./-]+\.ts)\b/;
const CONSTANT = /^export const ([A-Z][A-Z0-9_]+) = (\d+);$/m;

/** The claim an answer makes: a constant with its value and lines, only a file, or nothing. */
export function claimIn(text) {
  const claim = CLAIM.exec(text);
  if (claim) return { symbol: claim[1], value: Number(claim[2]), path: claim[3], start: Number(claim[4]), end: Number(claim[5]) };
  const path = PATH.exec(text);
  return path ? { path: path[1] } : undefined;
}

/** The claim a read window supports: the documented constant in it, with its comment's line and its own. */
function claimFromWindow(files, path, offset, limit) {
  const window = linesOf(files.get(path) ?? "", offset, limit);
  const constant = CONSTANT.exec(window);
  if (!constant) return undefined;
  const line = offset + window.slice(0, constant.index).split("\n").length - 1;
  return { symbol: constant[1], value: Number(constant[2]), path, start: line - 1, end: line, about: window };
}

/**
 * What the engineer does once the librarian has answered (`handedBack`, the consult tool's result): the
 * calls it makes and its final answer. A cited constant is taken as it is (trust) or read first
 * (verify: the cited lines and two around them); a cited range that is not about a failed invoice charge
 * sends the engineer to explore itself (`exploration`). An answer naming only a file is searched for
 * the retry count (grep, then the lines around the hit) under either policy; an answer naming nothing
 * sends the engineer to explore.
 */
export function afterConsultation(handedBack, policy, repository, exploration) {
  const { files, truth } = repository;
  const explored = { calls: exploration, answer: `${claimText(truth)}.` };
  const claim = claimIn(handedBack);
  if (claim?.symbol !== undefined) {
    if (policy === "trust") return { calls: [], answer: `${claimText(claim)}.` };
    const offset = Math.max(1, claim.start - 2);
    const limit = claim.end - claim.start + 5;
    const read = claimFromWindow(files, claim.path, offset, limit);
    if (read?.about.includes(FACT_TOPIC)) return { calls: [readRange(claim.path, offset, limit)], answer: `${claimText(read)}.` };
    return { calls: [readRange(claim.path, offset, limit), ...explored.calls], answer: explored.answer };
  }
  if (claim?.path !== undefined && files.has(claim.path)) {
    const lines = files.get(claim.path).split("\n");
    const hit = lines.findIndex((line) => /retr/i.test(line)) + 1;
    const read = hit > 0 ? claimFromWindow(files, claim.path, Math.max(1, hit - 2), 6) : undefined;
    const grep = call("grep", { pattern: "retr", path: claim.path, ignore_case: true });
    if (read) return { calls: [grep, readRange(claim.path, Math.max(1, hit - 2), 6)], answer: `${claimText(read)}.` };
    return { calls: [grep, ...explored.calls], answer: explored.answer };
  }
  return explored;
}

/** Prompt-cache prices over the base input price: a write costs 1.25×, a read 0.1× (Anthropic's five-minute cache). */
export const CACHE_WRITE = 1.25;
export const CACHE_READ = 0.1;

/** A request as the cache sees it: tools, then system, then messages, in characters. */
const cacheOrder = (body) => JSON.stringify(body.tools ?? []) + JSON.stringify(body.system ?? "") + JSON.stringify(body.messages ?? []);

/**
 * What one agent's requests cost in base input tokens when each reuses the cache the one before it wrote
 * (Sylk marks the tools, the system prompt and the last message for caching): the characters a request
 * shares from the start with the previous one are read at CACHE_READ, the rest written at CACHE_WRITE,
 * four characters a token as count_tokens estimates. A change early in the request (a tool loaded by
 * find_tools) makes everything after it a write again. An estimate: the real cache hits at block
 * boundaries and keeps an entry five minutes.
 */
export function cachedInputCost(bodies) {
  let previous = "";
  let cost = 0;
  for (const body of bodies) {
    const current = cacheOrder(body);
    let shared = 0;
    const most = Math.min(previous.length, current.length);
    while (shared < most && previous.charCodeAt(shared) === current.charCodeAt(shared)) shared++;
    cost += (CACHE_READ * shared + CACHE_WRITE * (current.length - shared)) / 4;
    previous = current;
  }
  return cost;
}

/** Whether a final answer names the right file, the right constant and its value. */
export function scoreAnswer(text, truth) {
  const file = text.includes(truth.path);
  const symbol = new RegExp(`\\b${truth.symbol}\\b`).test(text);
  const value = new RegExp(`\\b${truth.symbol} (?:is|=) ${truth.value}\\b`).test(text);
  return { file, symbol, value, correct: file && symbol && value };
}

/**
 * A librarian erring at a profile's rates, from the runs of each outcome: the share of tasks the
 * engineer gets right and the mean of each figure (each outcome's run weighted by its rate). The runs are
 * deterministic (the same script gives the same requests), so the mixture is what drawing the outcomes
 * at those rates would give over many tasks, without the sampling noise.
 */
export function mixture(outcomeRuns, profile) {
  const rates = Object.entries(profile.rates).filter(([, rate]) => rate > 0);
  const total = rates.reduce((sum, [, rate]) => sum + rate, 0);
  if (Math.abs(total - 1) > 1e-9) throw new RangeError(`${profile.name}: rates sum to ${total}, not 1`);
  const mean = (figure) =>
    rates.reduce((sum, [outcome, rate]) => {
      const run = outcomeRuns[outcome];
      if (!run) throw new RangeError(`${profile.name}: no run of the ${outcome} answer`);
      return sum + rate * figure(run);
    }, 0);
  return {
    accuracy: mean((run) => (run.score.correct ? 1 : 0)),
    windowAdded: mean((run) => run.windowAdded),
    totalInput: mean((run) => run.totalInput),
    cachedInput: mean((run) => run.cachedInput),
    engineerCalls: mean((run) => run.engineerCalls),
    librarianCalls: mean((run) => run.librarianCalls),
  };
}

/**
 * The table's rows: for each number of reads, the engineer alone, then each policy under each profile,
 * with the engineer's window growth and the input tokens over all agents against the engineer alone
 * (above 1× consultation saves, below 1× it costs more).
 */
export function scenarioTable(measured, readCounts = READ_COUNTS, profiles = PROFILES) {
  const rows = [];
  for (const reads of readCounts) {
    const self = measured.find((run) => run.reads === reads && run.mode === "self");
    if (!self) throw new RangeError(`no run of the engineer alone at ${reads} reads`);
    rows.push({
      reads,
      engineer: "explores itself",
      librarian: "",
      accuracy: self.score.correct ? 1 : 0,
      windowAdded: self.windowAdded,
      totalInput: self.totalInput,
      cachedInput: self.cachedInput,
      windowRatio: 1,
      totalRatio: 1,
      cachedRatio: 1,
    });
    for (const policy of POLICIES) {
      const outcomeRuns = Object.fromEntries(
        measured.filter((run) => run.reads === reads && run.mode === "consult" && run.policy === policy).map((run) => [run.outcome, run]),
      );
      for (const profile of profiles) {
        const mixed = mixture(outcomeRuns, profile);
        rows.push({
          reads,
          engineer: `consults, ${policy === "trust" ? "trusts the answer" : "verifies the answer"}`,
          librarian: profile.name,
          accuracy: mixed.accuracy,
          windowAdded: mixed.windowAdded,
          totalInput: mixed.totalInput,
          cachedInput: mixed.cachedInput,
          windowRatio: self.windowAdded / mixed.windowAdded,
          totalRatio: self.totalInput / mixed.totalInput,
          cachedRatio: self.cachedInput / mixed.cachedInput,
        });
      }
    }
  }
  return rows;
}

const tokens = (value) => Math.round(value).toLocaleString("en-US");
const ratio = (value) => `${value.toFixed(2)}×`;
const percent = (value) => `${Math.round(value * 100)} %`;

/** The printed report: the table by error rate, then each run it mixes. */
export function consultationReport({ seed, via, readCounts, runs, table }) {
  const lines = [
    `Consultation (seed ${seed}, via ${via}): reads ${readCounts.join(", ")}; ratios are the engineer alone over the row (above 1× consulting saves).`,
    "",
    "| reads | engineer | librarian right/partial/wrong | accuracy | engineer's window growth | alone / row | input tokens, all agents | alone / row | the same, prompt-cached | alone / row |",
    "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const row of table) {
    const ratios = row.librarian === "" ? ["", "", ""] : [ratio(row.windowRatio), ratio(row.totalRatio), ratio(row.cachedRatio)];
    lines.push(
      `| ${row.reads} | ${row.engineer} | ${row.librarian} | ${percent(row.accuracy)} | ${tokens(row.windowAdded)} | ${ratios[0]} | ${tokens(row.totalInput)} | ${ratios[1]} | ${tokens(row.cachedInput)} | ${ratios[2]} |`,
    );
  }
  lines.push(
    "",
    "| reads | engineer | librarian's answer | right | window growth (first → final) | engineer calls / input | librarian calls / input (first request) | total input | prompt-cached |",
    "| ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const run of runs) {
    const librarian = run.mode === "self" ? "" : `${run.librarianCalls} / ${tokens(run.librarianInput)} (${tokens(run.librarianFirst)})`;
    lines.push(
      `| ${run.reads} | ${run.mode === "self" ? "alone" : run.policy} | ${run.outcome ?? ""} | ${run.score.correct ? "yes" : "no"} | ${tokens(run.windowAdded)} (${tokens(run.windowFirst)} → ${tokens(run.windowFinal)}) | ${run.engineerCalls} / ${tokens(run.engineerInput)} | ${librarian} | ${tokens(run.totalInput)} | ${tokens(run.cachedInput)} |`,
    );
  }
  const discarded = runs.flatMap((run) => run.discarded ?? []);
  lines.push(
    "",
    `Runs discarded after a transport failure and run again: ${discarded.length}${discarded.map((why) => `\n- ${why}`).join("")}`,
  );
  return lines.join("\n");
}
