// Faults of the model API, for scripts/bench-faults.mjs.
import { join } from "node:path";
import { hasStackTrace, projectDatabases, sessionState } from "./fault-checks.mjs";
import { stepOf } from "./faults-agent.mjs";
import { count, envFor, generateProject, sum, tally } from "./fault-harness.mjs";
import { startFakeMessagesServer } from "./fake-messages-server.mjs";

/** Each fault, as the answer to one attempt. `stallAt`: headers and a few events, then silence. */
const FAULTS = {
  "429 + retry-after: 1": () => ({ status: 429, headers: { "retry-after": "1" }, message: "rate limited" }),
  "529 overloaded": () => ({ status: 529, message: "Overloaded" }),
  "500 api error": () => ({ status: 500, message: "Internal server error" }),
  "stream cut mid-event": () => ({
    blocks: [{ type: "text", text: "An answer that is cut off in the middle of an event." }],
    cutAfter: 6,
    cutMidEvent: true,
  }),
  "malformed JSON event": () => ({ blocks: [{ type: "text", text: "An answer with a broken event." }], malformedAt: 4 }),
  "hang before headers": () => ({ hang: true }),
  "stream stalls mid-way": () => ({ blocks: [{ type: "text", text: "An answer that stops coming." }], stallAt: 5 }),
};
const MODEL_TIMEOUT_MS = 1_500;
const MODEL_MAX_ATTEMPTS = 3;
/** Past this a run is taken as hung and killed by the benchmark. */
const RUN_CAP_MS = 30_000;

/**
 * Each fault of the model API on the second model call of a run, on its first attempt only
 * ("once": a retry should recover) or on every attempt (the run should end with its exit code).
 */
export async function modelScenario(bench) {
  const { scratch, faultRuns, openDb, launch, run, log } = bench;
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
      if (step === 1)
        return {
          blocks: [
            { type: "text", text: "Reading." },
            { type: "tool_use", id: `toolu_m${server.count}_s1`, name: "read_file", input: { path: "src/mod1.ts" } },
          ],
        };
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
    // The cap is also the longest retry-after Sylk waits for: it must let the 429's 1 s through. With
    // three attempts the backoff's own delays stay about 50 and 100 ms.
    SYLK_MODEL_RETRY_MAX_DELAY_MS: "2000",
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
          const state = sessionId
            ? sessionState(
                db,
                sessionId,
                proc.lines.filter((line) => line.type === "assistant").map((line) => line.turn),
              )
            : undefined;
          const prompt = sessionId
            ? db.prepare("SELECT count(*) AS n FROM content_entries WHERE session_id = ? AND content_type = 'user_prompt'").get(sessionId).n
            : 0;
          db.close();
          runs.push({
            exitCode: hung ? "hung" : result.code,
            recovered: result.code === 0 && retries.length > 0 && resultLine?.response === "The handlers multiply and add.",
            retries: retries.length,
            retryAfterHonoured: fault.startsWith("429") ? retries.every((line) => line.delay_ms >= 1_000) : undefined,
            // Recorded: the prompt and every answered turn, each once, and the session's counter agrees.
            recorded:
              Boolean(state?.exists) && prompt === 1 && state.lost === 0 && state.duplicated === 0 && state.gaps === 0 && !state.counterOff,
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
        log(
          `model: ${fault}, ${row.mode}: recovered ${row.recovered}/${row.runs}, exit ${JSON.stringify(row.exitCodes)}, recorded ${row.recorded}, ${row.medianMs} ms${row.message ? `, "${row.message}"` : ""}`,
        );
      }
    }
  } finally {
    await server.close();
  }
  return { timeoutMs: MODEL_TIMEOUT_MS, maxAttempts: MODEL_MAX_ATTEMPTS, rows };
}
