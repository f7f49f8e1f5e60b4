// kill -9 during an agent turn, for scripts/bench-faults.mjs.
import { join } from "node:path";
import { fullTextAgrees, indexAgreesWithManifest, integrity, projectDatabases, sessionState } from "./fault-checks.mjs";
import { count, envFor, generateProject, randomFor, sum, tally } from "./fault-harness.mjs";
import { startFakeMessagesServer } from "./fake-messages-server.mjs";

/** Tool calls per run before the final answer (evict: enough turns for several evictions). */
const STEPS = { stream: 4, tool: 4, evict: 7 };
const RECOVERY_PROMPT = "Continue after the interruption.";
const PROBE_PROMPT = "Measure the request.";
/**
 * Evict: what the window holds beside its fixed part (system prompt, tools, the answer's quarter):
 * the prompt and about three 15-line reads (~425 tokens a turn), so the oldest turns move out from
 * the fourth, as the default policy (three recent turns kept) also starts there.
 */
const EVICT_ROOM_TOKENS = 1_500;

/** What the scripted model does at each step of a trial: text, then one tool call; a final answer after STEPS calls. */
function agentStep(kind, trial, step) {
  const id = `toolu_t${trial}_s${step}`;
  const text =
    kind === "stream" ? `Step ${step}: ${"I am reading the next module to follow the handlers through. ".repeat(4)}` : `Step ${step}.`;
  // Evict: 15-line reads (~425 tokens): the window holds three turns, then the oldest move out each turn.
  const call =
    kind === "tool"
      ? { name: "run_command", input: { command: "sleep 1", timeout_ms: 10_000 } }
      : {
          name: "read_file",
          input:
            kind === "evict"
              ? { path: `src/mod${step % 6}.ts`, offset: 1 + 15 * (step % 5), limit: 15 }
              : { path: `src/mod${step % 6}.ts` },
        };
  return {
    blocks: [
      { type: "text", text },
      { type: "tool_use", id, ...call },
    ],
    eventDelayMs: kind === "stream" ? 10 : 2,
  };
}

/** The step a request is at, from the last message: a result for step k asks for step k + 1. */
export function stepOf(body) {
  const last = body.messages.at(-1);
  const blocks = Array.isArray(last?.content) ? last.content : [];
  if (blocks.some((block) => block.type === "text" && block.text.includes(RECOVERY_PROMPT))) return "recovery";
  if (blocks.some((block) => block.type === "text" && block.text.includes(PROBE_PROMPT))) return "probe";
  const answered = blocks
    .filter((block) => block.type === "tool_result")
    .map((block) => /_s(\d+)$/.exec(block.tool_use_id)?.[1])
    .filter(Boolean);
  return answered.length > 0 ? Number(answered.at(-1)) + 1 : 1;
}

/**
 * kill -9 during `sylk ask` against the fake Messages API: while it streams an answer (stream),
 * while `run_command sleep 1` runs (tool), or around the eviction before a model call (evict, a
 * window a little above the request's fixed part); then `sylk ask --continue` on the same session.
 */
export async function agentScenario(bench, kind) {
  const { repo, trials, seed, scratch, openDb, launch, run, log } = bench;
  const random = randomFor(seed, kind);
  const base = join(scratch, `agent-${kind}`);
  const root = join(base, "project");
  const home = join(base, "home");
  generateProject(root);
  let current = { trial: 0, kill: () => {}, killAt: undefined };
  const server = await startFakeMessagesServer({
    plan(body) {
      const step = stepOf(body);
      if (step === "recovery" || step === "probe" || step > STEPS[kind])
        return { blocks: [{ type: "text", text: step === "recovery" ? "Recovered." : "Done." }], eventDelayMs: 2 };
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
  let window = [];
  const askArgs = (prompt, extra = []) => [
    "ask",
    "--yes",
    "--output-format",
    "stream-json",
    "--permission-mode",
    "bypass",
    ...window,
    ...extra,
    prompt,
  ];
  const indexed = await run(["index", "--yes", root], { cwd: root, env });
  if (indexed.code !== 0) throw new Error(`indexing the generated project failed:\n${indexed.stderr}`);
  const seenSessions = new Set();
  let windowTokens;
  if (kind === "evict") {
    const measured = await evictionWindow(run, askArgs, { cwd: root, env });
    windowTokens = measured.windowTokens;
    seenSessions.add(measured.sessionId);
    window = ["--context-window", String(windowTokens)];
    log(`evict: the request's fixed part measured; --context-window ${windowTokens}`);
  }

  const outcomes = [];
  try {
    for (let trial = 1; trial <= trials; trial++) {
      const invalidBefore = server.requests.filter((request) => request.invalid).length;
      const proc = launch(askArgs(`Trial ${trial}: follow the handlers through the modules.`), { cwd: root, env });
      const kill = () => proc.child.kill("SIGKILL");
      // Where to kill: stream — a random event of a random answer; tool — a random moment of a
      // random `sleep 1`; evict — a random moment after a random turn (2…) starts, when the
      // window is prepared and the oldest turns move out.
      const step = 1 + Math.floor(random() * STEPS[kind]);
      current = {
        trial,
        kill,
        killAt: kind === "stream" ? { step, fraction: random(), afterEnd: random() < 0.4, delayMs: random() * 8 } : undefined,
      };
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
      const recoveryLines = recovery.stdout
        .split("\n")
        .filter(Boolean)
        .flatMap((text) => {
          try {
            return [JSON.parse(text)];
          } catch {
            return [];
          }
        });
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
    ...(windowTokens ? { windowTokens } : {}),
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

/**
 * The evict scenario's window: one run with a large window answered at once, whose `context` line
 * says what the first request carries (system prompt, tools, prompt); a small window keeps a
 * quarter for the answer. Measured, not fixed: the window follows the tools as they grow.
 */
async function evictionWindow(run, askArgs, options) {
  const probe = await run(askArgs(PROBE_PROMPT, ["--context-window", "200000"]), options);
  const lines = probe.stdout
    .split("\n")
    .filter(Boolean)
    .flatMap((text) => {
      try {
        return [JSON.parse(text)];
      } catch {
        return [];
      }
    });
  const used = lines.find((line) => line.type === "context")?.used_tokens;
  if (probe.code !== 0 || !used) throw new Error(`measuring the request's fixed part failed (exit ${probe.code}):\n${probe.stderr}`);
  return {
    windowTokens: Math.ceil((used + EVICT_ROOM_TOKENS) / 0.75 / 1_000) * 1_000,
    sessionId: lines.find((line) => line.type === "init")?.session_id,
  };
}

function newestSession(db, seen) {
  const row = db.prepare("SELECT id FROM sessions ORDER BY created_at DESC, rowid DESC LIMIT 1").get();
  return row && !seen.has(row.id) ? row.id : undefined;
}
