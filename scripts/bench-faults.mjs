#!/usr/bin/env node
// Fault figures (issue 11): counts, not a pass/fail. The real built CLI runs as child processes
// with a temporary SYLK_HOME and is hurt on purpose:
//   index   kill -9 at seeded random moments of `sylk index` on a large tree; each run continues
//           the index the killed one left, until one completes (then it is compared with a
//           complete reference index and a new chain starts from nothing);
//   stream  kill -9 while `sylk ask` reads a model answer (at a random SSE event);
//   tool    kill -9 while a tool runs (`run_command sleep 1`, --permission-mode bypass);
//   evict   kill -9 around the eviction that precedes each model call (--context-window 6000);
//   model   429 with retry-after, 529, 500, a stream cut mid-event, malformed JSON, a request
//           that hangs and a stream that stalls past the timeout, each once (a retry should
//           recover) and on every attempt (the run should end with its documented exit code);
//   disk    SYLK_HOME on a small tmpfs (root only): a large index that does not fit, beside a
//           small complete one.
// After each killed run: PRAGMA integrity_check, the index against its manifest (and the
// full-text indexes against their tables), the session's turns against those the process
// printed, and a following `sylk index` / `sylk ask --continue`. Agent runs talk to a fake
// Messages API on loopback (scripts/lib/fake-messages-server.mjs).
//
//   npm run build && node scripts/bench-faults.mjs --tree <dir> [--trials 50] [--seed 11]
//        [--fault-runs 5] [--disk-runs 5] [--disk-mb 48] [--only index,stream,tool,evict,model,disk]
//
// --tree is a checkout of a large repository (required): the index trials need a tree whose cold
// index takes several seconds; docs/BENCHMARKS.md uses biomejs/biome at commit 18883b7d. Results
// go to stdout as markdown and to .sylk-bench/faults.json.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startFakeMessagesServer } from "./lib/fake-messages-server.mjs";
import { chunkCountsByPath, fullTextAgrees, hasStackTrace, indexAgreesWithManifest, integrity, openDriver, projectDatabases, sessionState } from "./lib/fault-checks.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SCENARIOS = ["index", "stream", "tool", "evict", "model", "disk"];
const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    trials: { type: "string", default: "50" },
    seed: { type: "string", default: "11" },
    "fault-runs": { type: "string", default: "5" },
    "disk-runs": { type: "string", default: "5" },
    "disk-mb": { type: "string", default: "48" },
    only: { type: "string", default: SCENARIOS.join(",") },
  },
});
if (!values.tree || !existsSync(values.tree)) {
  console.error("Usage: node scripts/bench-faults.mjs --tree <dir> [--trials 50] [--seed 11] [--fault-runs 5] [--only index,stream,tool,evict,model,disk] (a checkout of a large repository)");
  process.exit(2);
}
if (!existsSync(join(repo, "dist/src/app/project-services.js"))) {
  console.error("Run `npm run build` first.");
  process.exit(2);
}
const tree = resolve(values.tree);
const trials = Number(values.trials);
const faultRuns = Number(values["fault-runs"]);
const only = new Set(values.only.split(","));
const sylk = join(repo, "bin/sylk.js");
const openDb = openDriver(repo);
const scratch = mkdtempSync(join(tmpdir(), "sylk-bench-faults-"));
/** Per file of a complete index of the tree (path → content hash, chunks), once the index scenario made one. */
let completeIndex;
const results = { seed: Number(values.seed), trials, faultRuns, tree, scenarios: {} };

/** A seeded generator per scenario, so one scenario's trials do not shift another's. */
function randomFor(name) {
  let state = (Number(values.seed) ^ [...name].reduce((hash, char) => Math.imul(hash ^ char.charCodeAt(0), 16777619), 2166136261)) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The environment of one child: nothing of the caller's Sylk or model settings leaks in. */
function envFor(home, extra = {}) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^(SYLK_|ANTHROPIC_|OPENAI_)/.test(key)) delete env[key];
  return { ...env, HOME: dirname(home), SYLK_HOME: home, CI: "true", NO_COLOR: "1", ...extra };
}

/** Starts `sylk …`; `lines` fills with stdout's JSON lines as they arrive. */
function launch(args, { cwd, env }) {
  const started = performance.now();
  const child = spawn(process.execPath, [sylk, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const lines = [];
  const listeners = [];
  let stdout = "";
  let stderr = "";
  let pending = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    pending += chunk;
    const complete = pending.split("\n");
    pending = complete.pop() ?? "";
    for (const text of complete) {
      let line;
      try {
        line = JSON.parse(text);
      } catch {
        continue;
      }
      lines.push(line);
      for (const listener of listeners) listener(line);
    }
  });
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((done) => child.on("close", (code, signal) => done({ code, signal, stdout, stderr, ms: performance.now() - started })));
  return { child, lines, onLine: (listener) => listeners.push(listener), exited };
}

const run = (args, options) => launch(args, options).exited;
const tally = (list, key) => list.reduce((counts, item) => ((counts[item[key]] = (counts[item[key]] ?? 0) + 1), counts), {});
const sum = (list, pick) => list.reduce((total, item) => total + (pick(item) || 0), 0);
const count = (list, pick) => list.filter(pick).length;
const log = (text) => process.stderr.write(`${text}\n`);

// ---------------------------------------------------------------------------------------------
// index: kill -9 while indexing a large tree

async function indexScenario() {
  const random = randomFor("index");
  const referenceHome = join(scratch, "index-reference", "home");
  log(`index: reference cold index of ${tree}…`);
  const reference = await run(["index", "--yes", "--json", tree], { cwd: tree, env: envFor(referenceHome) });
  if (reference.code !== 0) throw new Error(`reference index failed:\n${reference.stderr}`);
  const referenceDb = openDb(projectDatabases(referenceHome)[0]);
  const referenceChunks = chunkCountsByPath(referenceDb);
  completeIndex = referenceChunks;
  const referenceCounts = referenceDb.prepare("SELECT (SELECT count(*) FROM files WHERE status = 'indexed') AS indexed, (SELECT count(*) FROM chunks) AS chunks").get();
  referenceDb.close();
  rmSync(dirname(referenceHome), { recursive: true, force: true });
  const coldMs = reference.ms;
  log(`index: cold index ${(coldMs / 1000).toFixed(1)} s, ${referenceCounts.indexed} files, ${referenceCounts.chunks} chunks`);

  const killed = [];
  const chains = [];
  let chain = { home: join(scratch, `index-chain-0`, "home"), kills: 0 };
  const finishChain = async (result) => {
    const db = openDb(projectDatabases(chain.home)[0]);
    const agrees = indexAgreesWithManifest(db, referenceChunks);
    const check = integrity(db);
    db.close();
    const fullText = await fullTextAgrees(repo, tree, envFor(chain.home));
    chains.push({
      kills: chain.kills,
      exitCode: result.code,
      integrityOk: check.ok,
      equalToReference: agrees.ok && fullText.ok && fullText.state === "fresh" && agrees.indexed === referenceCounts.indexed && agrees.chunks === referenceCounts.chunks,
      detail: [...agrees.problems, ...fullText.problems, `state ${fullText.state}`, `${agrees.indexed} files, ${agrees.chunks} chunks`].join("; "),
    });
    rmSync(dirname(chain.home), { recursive: true, force: true });
    chain = { home: join(scratch, `index-chain-${chains.length}`, "home"), kills: 0 };
  };
  let followingFailed = 0;
  while (killed.length < trials) {
    // Up to half a cold index from the start of the process: start-up, scan and the first
    // commits are hit as often as the middle, and chained runs reach the end of the index.
    const delayMs = random() * coldMs * 0.5;
    const proc = launch(["index", "--yes", "--json", tree], { cwd: tree, env: envFor(chain.home) });
    const timer = setTimeout(() => proc.child.kill("SIGKILL"), delayMs);
    const result = await proc.exited;
    clearTimeout(timer);
    if (result.signal !== "SIGKILL") {
      if (result.code !== 0) {
        followingFailed++;
        log(`index: a run after a kill failed (exit ${result.code}): ${result.stderr.trim().split("\n").at(-1)}`);
      }
      await finishChain(result);
      continue;
    }
    chain.kills++;
    const progress = proc.lines.filter((line) => line.type === "progress").at(-1);
    const phase = !progress ? "start-up" : progress.phase === "indexing" ? (progress.indexed === 0 ? "indexing (nothing committed)" : "indexing") : progress.phase;
    const databases = projectDatabases(chain.home);
    const trial = { delayMs: Math.round(delayMs), phase, database: databases.length > 0 };
    if (trial.database) {
      const db = openDb(databases[0]);
      const check = integrity(db);
      const agrees = indexAgreesWithManifest(db, referenceChunks);
      db.close();
      const fullText = await fullTextAgrees(repo, tree, envFor(chain.home));
      Object.assign(trial, {
        integrityOk: check.ok,
        integrity: check.detail,
        consistent: agrees.ok && fullText.ok,
        problems: [...agrees.problems, ...fullText.problems],
        indexedFiles: agrees.indexed,
        state: fullText.state,
      });
    }
    killed.push(trial);
    log(`index: trial ${killed.length}/${trials} killed at ${(delayMs / 1000).toFixed(2)} s (${phase}): ${trial.database ? `integrity ${trial.integrity}, ${trial.consistent ? "consistent" : trial.problems.join("; ")}, ${trial.indexedFiles} files` : "no database yet"}`);
  }
  // The last chain: a run to the end, which must complete what the kills left.
  if (chain.kills > 0) {
    const result = await run(["index", "--yes", "--json", tree], { cwd: tree, env: envFor(chain.home) });
    if (result.code !== 0) followingFailed++;
    await finishChain(result);
  }
  return {
    coldIndexMs: Math.round(coldMs),
    reference: referenceCounts,
    trials: killed.length,
    phases: tally(killed, "phase"),
    withDatabase: count(killed, (trial) => trial.database),
    integrityOk: count(killed, (trial) => trial.integrityOk),
    consistent: count(killed, (trial) => trial.consistent),
    followingRunFailed: followingFailed,
    chains: chains.length,
    chainsEqualToReference: count(chains, (item) => item.equalToReference),
    chainDetails: chains,
    killed,
  };
}

// ---------------------------------------------------------------------------------------------
// stream / tool / evict: kill -9 during an agent turn

/** Tool calls per run before the final answer (evict: enough turns for several evictions). */
const STEPS = { stream: 4, tool: 4, evict: 7 };
const RECOVERY_PROMPT = "Continue after the interruption.";

/** A small TypeScript project: six files of 80 lines, so that reading one costs ~1,900 tokens. */
function generateProject(root) {
  mkdirSync(join(root, "src"), { recursive: true });
  for (let file = 0; file < 6; file++) {
    const lines = Array.from({ length: 80 }, (_, line) => `export function handler${file}_${line}(value: number) { return value * ${line} + ${file}; } // step ${line}`);
    writeFileSync(join(root, `src/mod${file}.ts`), `${lines.join("\n")}\n`);
  }
  writeFileSync(join(root, "README.md"), "# Handlers\n\nSix modules of numeric handlers.\n");
}

/** What the scripted model does at each step of a trial: text, then one tool call; a final answer after STEPS calls. */
function agentStep(kind, trial, step) {
  const id = `toolu_t${trial}_s${step}`;
  const text = kind === "stream" ? `Step ${step}: ${"I am reading the next module to follow the handlers through. ".repeat(4)}` : `Step ${step}.`;
  // Evict: 15-line reads (~400 tokens): the 6k window holds a few turns, then the oldest move out each turn.
  const call =
    kind === "tool"
      ? { name: "run_command", input: { command: "sleep 1", timeout_ms: 10_000 } }
      : { name: "read_file", input: kind === "evict" ? { path: `src/mod${step % 6}.ts`, offset: 1 + 15 * (step % 5), limit: 15 } : { path: `src/mod${step % 6}.ts` } };
  return { blocks: [{ type: "text", text }, { type: "tool_use", id, ...call }], eventDelayMs: kind === "stream" ? 10 : 2 };
}

/** The step a request is at, from the last message: a result for step k asks for step k + 1. */
function stepOf(body) {
  const last = body.messages.at(-1);
  const blocks = Array.isArray(last?.content) ? last.content : [];
  if (blocks.some((block) => block.type === "text" && block.text.includes(RECOVERY_PROMPT))) return "recovery";
  const answered = blocks.filter((block) => block.type === "tool_result").map((block) => /_s(\d+)$/.exec(block.tool_use_id)?.[1]).filter(Boolean);
  return answered.length > 0 ? Number(answered.at(-1)) + 1 : 1;
}

async function agentScenario(kind) {
  const random = randomFor(kind);
  const base = join(scratch, `agent-${kind}`);
  const root = join(base, "project");
  const home = join(base, "home");
  generateProject(root);
  let current = { trial: 0, kill: () => {}, killAt: undefined };
  const server = await startFakeMessagesServer({
    plan(body) {
      const step = stepOf(body);
      if (step === "recovery" || step > STEPS[kind]) return { blocks: [{ type: "text", text: step === "recovery" ? "Recovered." : "Done." }], eventDelayMs: 2 };
      const planned = agentStep(kind, current.trial, step);
      if (kind === "stream" && current.killAt?.step === step) {
        // Kill from inside the stream: after a random event of this answer has been written, or
        // a few milliseconds after its last one, while the answer is being recorded.
        const { fraction, afterEnd, delayMs } = current.killAt;
        planned.afterEvent = (index, total) => {
          if (afterEnd ? index === total - 1 : index === Math.floor(fraction * total)) setTimeout(current.kill, afterEnd ? delayMs : 0);
        };
      }
      return planned;
    },
  });
  const env = envFor(home, {
    ANTHROPIC_API_KEY: "sk-ant-bench-faults",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_RETRY_BASE_DELAY_MS: "20",
    SYLK_MODEL_RETRY_MAX_DELAY_MS: "100",
  });
  const window = kind === "evict" ? ["--context-window", "6000"] : [];
  const askArgs = (prompt, extra = []) => ["ask", "--yes", "--output-format", "stream-json", "--permission-mode", "bypass", ...window, ...extra, prompt];
  const indexed = await run(["index", "--yes", root], { cwd: root, env });
  if (indexed.code !== 0) throw new Error(`indexing the generated project failed:\n${indexed.stderr}`);

  const outcomes = [];
  const seenSessions = new Set();
  try {
    for (let trial = 1; trial <= trials; trial++) {
      const invalidBefore = server.requests.filter((request) => request.invalid).length;
      const proc = launch(askArgs(`Trial ${trial}: follow the handlers through the modules.`), { cwd: root, env });
      const kill = () => proc.child.kill("SIGKILL");
      // Where to kill: stream — a random event of a random answer; tool — a random moment of a
      // random `sleep 1`; evict — a random moment after a random turn (2…) starts, when the
      // window is prepared and the oldest turns move out.
      const step = 1 + Math.floor(random() * STEPS[kind]);
      current = { trial, kill, killAt: kind === "stream" ? { step, fraction: random(), afterEnd: random() < 0.4, delayMs: random() * 8 } : undefined };
      let timer;
      if (kind === "tool") {
        const delayMs = random() * 1_100;
        proc.onLine((line) => {
          if (line.type === "tool_use" && line.id === `toolu_t${trial}_s${step}`) timer = setTimeout(kill, delayMs);
        });
      } else if (kind === "evict") {
        // Evictions start around turn 4 and take 1–6 ms after the `turn` line.
        const turn = 4 + Math.floor(random() * (STEPS.evict - 3));
        const delayMs = random() * 4;
        proc.onLine((line) => {
          if (line.type === "turn" && line.turn === turn) timer = setTimeout(kill, delayMs);
        });
      }
      const result = await proc.exited;
      clearTimeout(timer);
      const killedRun = result.signal === "SIGKILL";
      const printedTurns = proc.lines.filter((line) => line.type === "assistant").map((line) => line.turn);
      const lastEvent = { message: "message (a text delta)" }[proc.lines.at(-1)?.type] ?? proc.lines.at(-1)?.type ?? "none";
      const db = openDb(projectDatabases(home)[0]);
      const sessionId = proc.lines.find((line) => line.type === "init")?.session_id ?? newestSession(db, seenSessions);
      const check = integrity(db);
      const before = sessionId ? sessionState(db, sessionId, printedTurns) : undefined;
      const agrees = indexAgreesWithManifest(db);
      db.close();
      const fullText = await fullTextAgrees(repo, root, env);

      // The next run continues the session the kill cut.
      const recovery = await run(askArgs(RECOVERY_PROMPT, ["--continue"]), { cwd: root, env });
      const recoveryLines = recovery.stdout.split("\n").filter(Boolean).flatMap((text) => { try { return [JSON.parse(text)]; } catch { return []; } });
      const resultLine = recoveryLines.find((line) => line.type === "result");
      const continuedTurns = recoveryLines.filter((line) => line.type === "assistant").map((line) => line.turn);
      const afterDb = openDb(projectDatabases(home)[0]);
      const after = sessionId ? sessionState(afterDb, sessionId, [...printedTurns, ...continuedTurns]) : undefined;
      afterDb.close();
      if (sessionId) seenSessions.add(sessionId);
      const outcome = {
        trial,
        killed: killedRun,
        exitCode: result.code,
        lastEvent,
        printedTurns: printedTurns.length,
        integrityOk: check.ok,
        integrity: check.detail,
        consistent: agrees.ok && fullText.ok,
        problems: [...agrees.problems, ...fullText.problems],
        session: before,
        continueExit: recovery.code,
        continueSameSession: resultLine?.session_id === sessionId,
        continueRefused: server.requests.filter((request) => request.invalid).length - invalidBefore,
        continueError: resultLine?.error?.message ?? (recovery.code !== 0 ? recovery.stderr.trim().split("\n").at(-1) : undefined),
        afterContinue: after,
      };
      outcomes.push(outcome);
      log(
        `${kind}: trial ${trial}/${trials} ${killedRun ? `killed after "${lastEvent}"` : `not killed (exit ${result.code})`}; ` +
          `integrity ${check.detail}; turns ${JSON.stringify(before?.turns ?? [])} lost ${before?.lost ?? "?"} dup ${before?.duplicated ?? "?"} gaps ${before?.gaps ?? "?"} unanswered ${before?.unansweredCalls ?? "?"}; ` +
          `--continue exit ${recovery.code}${outcome.continueError ? ` (${outcome.continueError.slice(0, 160)})` : ""}`,
      );
    }
  } finally {
    await server.close();
  }
  const killed = outcomes.filter((outcome) => outcome.killed);
  return {
    trials: outcomes.length,
    killed: killed.length,
    killedAfter: tally(killed, "lastEvent"),
    integrityOk: count(killed, (o) => o.integrityOk),
    consistent: count(killed, (o) => o.consistent),
    turnsPrinted: sum(killed, (o) => o.printedTurns),
    turnsLost: sum(killed, (o) => o.session?.lost),
    turnsDuplicated: sum(killed, (o) => o.session?.duplicated),
    turnGaps: sum(killed, (o) => o.session?.gaps),
    turnCounterOff: count(killed, (o) => o.session?.counterOff),
    orphanEntries: sum(killed, (o) => o.session?.orphanEntries),
    unansweredCalls: sum(killed, (o) => o.session?.unansweredCalls),
    danglingEvictions: sum(killed, (o) => o.session?.danglingEvictions),
    continueOk: count(killed, (o) => o.continueExit === 0 && o.continueSameSession),
    continueExitCodes: tally(killed, "continueExit"),
    continueRefusedByApi: count(killed, (o) => o.continueRefused > 0),
    afterContinue: {
      turnsLost: sum(killed, (o) => o.afterContinue?.lost),
      turnsDuplicated: sum(killed, (o) => o.afterContinue?.duplicated),
      turnGaps: sum(killed, (o) => o.afterContinue?.gaps),
      unansweredCalls: sum(killed, (o) => o.afterContinue?.unansweredCalls),
    },
    outcomes,
  };
}

function newestSession(db, seen) {
  const row = db.prepare("SELECT id FROM sessions ORDER BY created_at DESC, rowid DESC LIMIT 1").get();
  return row && !seen.has(row.id) ? row.id : undefined;
}

// ---------------------------------------------------------------------------------------------
// model: faults of the model API

/** Each fault, as the answer to one attempt. `stallAt`: headers and a few events, then silence. */
const FAULTS = {
  "429 + retry-after: 1": () => ({ status: 429, headers: { "retry-after": "1" }, message: "rate limited" }),
  "529 overloaded": () => ({ status: 529, message: "Overloaded" }),
  "500 api error": () => ({ status: 500, message: "Internal server error" }),
  "stream cut mid-event": () => ({ blocks: [{ type: "text", text: "An answer that is cut off in the middle of an event." }], cutAfter: 6 }),
  "malformed JSON event": () => ({ blocks: [{ type: "text", text: "An answer with a broken event." }], malformedAt: 4 }),
  "hang before headers": () => ({ hang: true }),
  "stream stalls mid-way": () => ({ blocks: [{ type: "text", text: "An answer that stops coming." }], stallAt: 5 }),
};
const MODEL_TIMEOUT_MS = 1_500;
const MODEL_MAX_ATTEMPTS = 3;
/** Past this a run is taken as hung and killed by the benchmark. */
const RUN_CAP_MS = 30_000;

async function modelScenario() {
  const base = join(scratch, "model");
  const root = join(base, "project");
  const home = join(base, "home");
  generateProject(root);
  // Each run: call 1 answers with a read_file call; call 2 (after the result) is faulted on
  // its first attempt only ("once") or on every attempt ("every attempt"), else answers.
  let current = { fault: undefined, persistent: false, attempts: 0 };
  const server = await startFakeMessagesServer({
    plan(body) {
      const step = stepOf(body);
      if (step === 1) return { blocks: [{ type: "text", text: "Reading." }, { type: "tool_use", id: `toolu_m${server.count}_s1`, name: "read_file", input: { path: "src/mod1.ts" } }] };
      current.attempts++;
      if (current.persistent || current.attempts === 1) return FAULTS[current.fault]();
      return { blocks: [{ type: "text", text: "The handlers multiply and add." }] };
    },
  });
  const env = envFor(home, {
    ANTHROPIC_API_KEY: "sk-ant-bench-faults",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_TIMEOUT_MS: String(MODEL_TIMEOUT_MS),
    SYLK_MODEL_MAX_ATTEMPTS: String(MODEL_MAX_ATTEMPTS),
    SYLK_MODEL_RETRY_BASE_DELAY_MS: "50",
    SYLK_MODEL_RETRY_MAX_DELAY_MS: "200",
  });
  const indexed = await run(["index", "--yes", root], { cwd: root, env });
  if (indexed.code !== 0) throw new Error(`indexing the generated project failed:\n${indexed.stderr}`);
  const rows = [];
  try {
    for (const fault of Object.keys(FAULTS)) {
      for (const persistent of [false, true]) {
        const runs = [];
        for (let attempt = 0; attempt < faultRuns; attempt++) {
          current = { fault, persistent, attempts: 0 };
          const proc = launch(["ask", "--yes", "--output-format", "stream-json", "How do the handlers work?"], { cwd: root, env });
          const cap = setTimeout(() => proc.child.kill("SIGKILL"), RUN_CAP_MS);
          const result = await proc.exited;
          clearTimeout(cap);
          const hung = result.signal === "SIGKILL";
          const retries = proc.lines.filter((line) => line.type === "retry");
          const resultLine = proc.lines.find((line) => line.type === "result");
          const sessionId = proc.lines.find((line) => line.type === "init")?.session_id;
          const db = openDb(projectDatabases(home)[0]);
          const state = sessionId ? sessionState(db, sessionId, proc.lines.filter((line) => line.type === "assistant").map((line) => line.turn)) : undefined;
          const prompt = sessionId ? db.prepare("SELECT count(*) AS n FROM content_entries WHERE session_id = ? AND content_type = 'user_prompt'").get(sessionId).n : 0;
          db.close();
          runs.push({
            exitCode: hung ? "hung" : result.code,
            recovered: result.code === 0 && retries.length > 0 && resultLine?.response === "The handlers multiply and add.",
            retries: retries.length,
            retryAfterHonoured: fault.startsWith("429") ? retries.every((line) => line.delay_ms >= 1_000) : undefined,
            // Recorded: the prompt and every answered turn, each once, and the session's counter agrees.
            recorded: Boolean(state?.exists) && prompt === 1 && state.lost === 0 && state.duplicated === 0 && state.gaps === 0 && !state.counterOff,
            turnsStored: state?.turns.length ?? 0,
            errorKind: resultLine?.error?.kind,
            message: resultLine?.error?.message,
            stackTrace: hasStackTrace(result.stderr),
            ms: Math.round(result.ms),
          });
        }
        const row = {
          fault,
          mode: persistent ? "every attempt" : "once",
          runs: runs.length,
          recovered: count(runs, (r) => r.recovered),
          exitCodes: tally(runs, "exitCode"),
          recorded: count(runs, (r) => r.recorded),
          stackTraces: count(runs, (r) => r.stackTrace),
          retries: sum(runs, (r) => r.retries),
          retryAfterHonoured: fault.startsWith("429") ? count(runs, (r) => r.retryAfterHonoured) : undefined,
          medianMs: runs.map((r) => r.ms).sort((a, b) => a - b)[Math.floor(runs.length / 2)],
          message: runs.find((r) => r.message)?.message,
          details: runs,
        };
        rows.push(row);
        log(`model: ${fault}, ${row.mode}: recovered ${row.recovered}/${row.runs}, exit ${JSON.stringify(row.exitCodes)}, recorded ${row.recorded}, ${row.medianMs} ms${row.message ? `, "${row.message}"` : ""}`);
      }
    }
  } finally {
    await server.close();
  }
  return { timeoutMs: MODEL_TIMEOUT_MS, maxAttempts: MODEL_MAX_ATTEMPTS, rows };
}

// ---------------------------------------------------------------------------------------------
// disk: SYLK_HOME on a small tmpfs

async function diskScenario(referenceChunks) {
  if (process.getuid?.() !== 0) return { skipped: "not running as root: mounting a tmpfs needs it" };
  const mountPoint = join(scratch, "small-disk");
  mkdirSync(mountPoint, { recursive: true });
  const sizeMb = Number(values["disk-mb"]);
  const mount = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m`, "tmpfs", mountPoint], { encoding: "utf8" });
  if (mount.status !== 0) return { skipped: `mount -t tmpfs failed: ${(mount.stderr || mount.error?.message || "").trim()}` };
  const small = join(scratch, "disk-project");
  generateProject(small);
  const runs = [];
  const clear = (result) => ({ exit: result.code, message: lastLine(result.stderr), stackTrace: hasStackTrace(result.stderr) });
  try {
    for (let attempt = 0; attempt < Number(values["disk-runs"]); attempt++) {
      const home = join(mountPoint, `run-${attempt}`, "home");
      const env = envFor(home);
      // A complete index of a small project first: it must survive what follows. The ballast is
      // space to free afterwards, as a user would, before looking at the damage.
      const smallIndex = await run(["index", "--yes", small], { cwd: small, env });
      const ballast = join(mountPoint, `run-${attempt}`, "ballast");
      writeFileSync(ballast, Buffer.alloc(4 << 20));
      const large = await run(["index", "--yes", tree], { cwd: tree, env });
      const full = spawnSync("df", ["-k", mountPoint], { encoding: "utf8" }).stdout.trim().split("\n").at(-1)?.split(/\s+/)[3];
      // With the disk still full: the small project's index, read by a search.
      const searchFull = await run(["search", "--json", "handler3_40"], { cwd: small, env });
      const askFull = await run(["ask", "--provider", "none", "handler3_40"], { cwd: small, env });
      rmSync(ballast);
      const outcome = {
        smallIndexExit: smallIndex.code,
        large: clear(large),
        largeDiskFullSaid: /disk (holding .* )?is full|no space left|ENOSPC/i.test(large.stderr),
        freeKbAfter: Number(full),
        searchOnFullDisk: { ...clear(searchFull), found: firstPath(searchFull.stdout) === "src/mod3.ts", diskFullSaid: /disk (holding .* )?is full|no space left/i.test(searchFull.stderr) },
        askOnFullDisk: { ...clear(askFull), diskFullSaid: /disk (holding .* )?is full|no space left/i.test(askFull.stderr) },
      };
      // Space freed: the small index complete and searchable (before anything opens the large
      // one, whose recovery may fill the disk again), then both databases intact and the large
      // one holding whole files only.
      const status = await run(["status", "--json"], { cwd: small, env });
      outcome.smallFresh = status.code === 0 && JSON.parse(status.stdout || "{}").state === "fresh";
      const search = await run(["search", "--json", "handler3_40"], { cwd: small, env });
      outcome.smallSearchOk = search.code === 0 && firstPath(search.stdout) === "src/mod3.ts";
      const databases = projectDatabases(home);
      outcome.databases = databases.length;
      outcome.integrityOk = 0;
      for (const path of databases) {
        const db = openDb(path);
        if (integrity(db).ok) outcome.integrityOk++;
        if (path.includes(hashOf(tree))) {
          const agrees = indexAgreesWithManifest(db, referenceChunks);
          outcome.largeConsistent = agrees.ok;
          outcome.largeProblems = agrees.problems;
          outcome.largeIndexedFiles = agrees.indexed;
        } else {
          outcome.smallConsistent = indexAgreesWithManifest(db).ok;
        }
        db.close();
      }
      runs.push(outcome);
      log(
        `disk: run ${attempt + 1}: large index exit ${large.code} ("${outcome.large.message.slice(0, 120)}"${outcome.large.stackTrace ? ", stack trace" : ""}); ` +
          `full disk: search exit ${searchFull.code} ("${outcome.searchOnFullDisk.message.slice(0, 100)}"); ` +
          `space freed: ${outcome.integrityOk}/${outcome.databases} databases intact, large consistent ${outcome.largeConsistent} (${outcome.largeIndexedFiles} files), small fresh ${outcome.smallFresh}, search ${outcome.smallSearchOk}`,
      );
      rmSync(dirname(home), { recursive: true, force: true });
    }
  } finally {
    unmount(mountPoint);
  }
  return {
    sizeMb,
    runs: runs.length,
    largeExitCodes: tally(runs.map((r) => r.large), "exit"),
    largeClear: count(runs, (r) => r.largeDiskFullSaid && !r.large.stackTrace),
    largeStackTraces: count(runs, (r) => r.large.stackTrace),
    searchOnFullDisk: { exitCodes: tally(runs.map((r) => r.searchOnFullDisk), "exit"), found: count(runs, (r) => r.searchOnFullDisk.found), diskFullSaid: count(runs, (r) => r.searchOnFullDisk.diskFullSaid), stackTraces: count(runs, (r) => r.searchOnFullDisk.stackTrace), message: runs[0]?.searchOnFullDisk.message },
    askOnFullDisk: { exitCodes: tally(runs.map((r) => r.askOnFullDisk), "exit"), diskFullSaid: count(runs, (r) => r.askOnFullDisk.diskFullSaid), stackTraces: count(runs, (r) => r.askOnFullDisk.stackTrace), message: runs[0]?.askOnFullDisk.message },
    integrityOk: sum(runs, (r) => r.integrityOk),
    databases: sum(runs, (r) => r.databases),
    largeConsistent: count(runs, (r) => r.largeConsistent),
    smallFresh: count(runs, (r) => r.smallFresh),
    smallSearchOk: count(runs, (r) => r.smallSearchOk),
    message: runs.find((r) => !r.large.stackTrace)?.large.message ?? runs[0]?.large.message,
    details: runs,
  };
}

/** Unmounts, waiting a little for the last child's files to close. */
function unmount(mountPoint) {
  for (let attempt = 0; attempt < 20; attempt++) {
    if (spawnSync("umount", [mountPoint]).status === 0) return;
    spawnSync("sleep", ["0.25"]);
  }
  spawnSync("umount", ["-l", mountPoint]);
}

function lastLine(text) {
  const lines = text.trim().split("\n").filter((line) => !/^(Scanning|Saving|\[|Indexed|Embedding)/.test(line));
  // A stack trace's message line, not its last frame.
  return (lines.find((line) => /^(sylk: |[A-Za-z]*Error: )/.test(line)) ?? lines.at(-1) ?? "").slice(0, 300);
}

function firstPath(stdout) {
  try {
    return JSON.parse(stdout).results?.[0]?.path;
  } catch {
    return undefined;
  }
}

/** The project directory's name under SYLK_HOME (as src/project/project-paths.ts derives it). */
function hashOf(root) {
  return createHash("sha256").update(realpathSync(root)).digest("hex").slice(0, 16);
}

// ---------------------------------------------------------------------------------------------

const started = performance.now();
try {
  if (only.has("index")) results.scenarios.index = await indexScenario();
  for (const kind of ["stream", "tool", "evict"]) if (only.has(kind)) results.scenarios[kind] = await agentScenario(kind);
  if (only.has("model")) results.scenarios.model = await modelScenario();
  if (only.has("disk")) results.scenarios.disk = await diskScenario(completeIndex);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
results.minutes = Number(((performance.now() - started) / 60_000).toFixed(1));
mkdirSync(join(repo, ".sylk-bench"), { recursive: true });
writeFileSync(join(repo, ".sylk-bench/faults.json"), JSON.stringify(results, null, 2));
printTables(results);

function printTables({ scenarios }) {
  const out = (text = "") => process.stdout.write(`${text}\n`);
  const codes = (tallied) => Object.entries(tallied).map(([code, n]) => `${code}: ${n}`).join(", ");
  out(`\nFault figures, seed ${results.seed}, ${results.minutes} min\n`);
  const { index } = scenarios;
  if (index) {
    out(`kill -9 while indexing (cold index ${(index.coldIndexMs / 1000).toFixed(1)} s, ${index.reference.indexed} files, ${index.reference.chunks} chunks)\n`);
    out("| trials | killed in (phase: trials) | database present | integrity ok | index agrees with manifest | following run failed | chains completed | equal to a complete index |");
    out("| --- | --- | --- | --- | --- | --- | --- | --- |");
    out(`| ${index.trials} | ${codes(index.phases)} | ${index.withDatabase} | ${index.integrityOk} / ${index.withDatabase} | ${index.consistent} / ${index.withDatabase} | ${index.followingRunFailed} | ${index.chains} | ${index.chainsEqualToReference} / ${index.chains} |\n`);
  }
  const agents = ["stream", "tool", "evict"].filter((kind) => scenarios[kind]);
  if (agents.length > 0) {
    out("kill -9 during an agent turn (`sylk ask`, then `sylk ask --continue`)\n");
    out("| during | trials | killed | killed after (last event: trials) | integrity ok | index + history agree | turns printed | lost | duplicated | gaps | counter off | orphan entries | calls without result | `--continue` ok | `--continue` exit codes | refused by the API | after `--continue`: lost / dup / gaps / unanswered |");
    out("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const kind of agents) {
      const s = scenarios[kind];
      const name = { stream: "streaming", tool: "a tool (`sleep 1`)", evict: "eviction (6k window)" }[kind];
      out(`| ${name} | ${s.trials} | ${s.killed} | ${codes(s.killedAfter)} | ${s.integrityOk} | ${s.consistent} | ${s.turnsPrinted} | ${s.turnsLost} | ${s.turnsDuplicated} | ${s.turnGaps} | ${s.turnCounterOff} | ${s.orphanEntries} | ${s.unansweredCalls} | ${s.continueOk} | ${codes(s.continueExitCodes)} | ${s.continueRefusedByApi} | ${s.afterContinue.turnsLost} / ${s.afterContinue.turnsDuplicated} / ${s.afterContinue.turnGaps} / ${s.afterContinue.unansweredCalls} |`);
    }
    out();
  }
  const { model } = scenarios;
  if (model) {
    out(`model faults (timeout ${model.timeoutMs} ms, ${model.maxAttempts} attempts per call)\n`);
    out("| fault | when | runs | recovered | exit codes | turn recorded | stack traces | retries | median run | message |");
    out("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const row of model.rows) {
      const honoured = row.retryAfterHonoured !== undefined ? ` (retry-after honoured in ${row.retryAfterHonoured})` : "";
      out(`| ${row.fault} | ${row.mode} | ${row.runs} | ${row.recovered} | ${codes(row.exitCodes)} | ${row.recorded} | ${row.stackTraces} | ${row.retries}${honoured} | ${(row.medianMs / 1000).toFixed(1)} s | ${row.message ?? ""} |`);
    }
    out();
  }
  const { disk } = scenarios;
  if (disk) {
    if (disk.skipped) out(`full disk: skipped (${disk.skipped})\n`);
    else {
      out(`full disk (SYLK_HOME on a ${disk.sizeMb} MB tmpfs, a small project indexed first)\n`);
      out("| runs | large index: exit codes | says the disk is full, no stack trace | stack traces | on the full disk, `sylk search` in the small project: exit codes / says the disk is full / found | space freed: databases intact | large index agrees with manifest | small index fresh | small index searchable |");
      out("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
      out(`| ${disk.runs} | ${codes(disk.largeExitCodes)} | ${disk.largeClear} | ${disk.largeStackTraces} | ${codes(disk.searchOnFullDisk.exitCodes)} / ${disk.searchOnFullDisk.diskFullSaid} / ${disk.searchOnFullDisk.found} | ${disk.integrityOk} / ${disk.databases} | ${disk.largeConsistent} | ${disk.smallFresh} | ${disk.smallSearchOk} |\n`);
      out(`Messages: large index "${disk.message}"; search on the full disk "${disk.searchOnFullDisk.message}"; \`sylk ask --provider none\` on the full disk "${disk.askOnFullDisk.message}".\n`);
    }
  }
}
