// The consultation benchmark's runs: the built product against the fake Messages API, one run per
// scenario of scripts/lib/consult-scenarios.mjs, each in a new indexed project of the seed's generated
// repository. A run reports the engineer's window growth, the input tokens of every request of every
// agent, the model calls of each, and whether the engineer's final answer is right.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { generateRepository } from "./agents-repository.mjs";
import {
  assistantTurns,
  BenchFailure,
  benchEnv,
  LIBRARIAN,
  runPrompt,
  systemOf,
  text,
  toolNamesOf,
  toolResultText,
  toolUse,
} from "./agents-runs.mjs";
import {
  afterConsultation,
  cachedInputCost,
  claimText,
  explorationCalls,
  librarianShare,
  scenarioRuns,
  scoreAnswer,
} from "./consult-scenarios.mjs";
import { estimateTokens, startFakeMessagesServer } from "./fake-messages-server.mjs";

const PROMPT = "How many times is a failed invoice charge retried? Find the constant that says so.";
const TASK = "Find the constant that sets how many times a failed invoice charge is retried, and cite where it is defined.";
const HANDOFF_ID = "toolu_eng_handoff";
/** How often a scenario is run again after a transport failure before the benchmark gives up. */
const TRANSPORT_RETRIES = 2;

const TRANSPORT_KINDS = ["connection", "timeout", "overloaded", "server"];
/** How a consultation whose librarian's model call failed in transport reads in the caller's tool result. */
const LIBRARIAN_TRANSPORT = /did not answer the consultation \(error: (Could not reach the model|.*timed out)/;

class TransportFailure extends BenchFailure {}

/** The librarian's turn `turn`: its exploration's calls, then share_context when offered, then its answer in words. */
function librarianStep(body, turn, exploration, share) {
  if (turn < exploration.length) return { blocks: [toolUse(`toolu_lib_${turn}`, exploration[turn].name, exploration[turn].input)] };
  const offered = toolNamesOf(body).includes("share_context");
  if (offered && turn === exploration.length) return { blocks: [toolUse("toolu_lib_share", "share_context", share)] };
  // Without share_context (a delegated librarian) the answer carries its source in the words.
  if (offered) return { blocks: [text(share.answer)] };
  const cited = share.sources.map((source) => `${source.path}:${source.start_line}-${source.end_line}`).join(", ");
  return { blocks: [text(`${share.answer}\n\nSources: ${cited}`)] };
}

/**
 * One scenario's run: `{ reads, mode: "self" }` or `{ reads, mode: "consult", policy, outcome }`.
 * Consulting, the engineer loads the tool through find_tools (it is deferred, as a model is told),
 * calls it once, and goes on as afterConsultation says.
 */
export async function consultationRun(product, scenario, seed, via) {
  const base = mkdtempSync(join(tmpdir(), "sylk-bench-consult-"));
  const root = join(base, "project");
  const repository = generateRepository(seed);
  for (const [path, content] of repository.files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const exploration = explorationCalls(repository, scenario.reads);
  const share = scenario.mode === "consult" ? librarianShare(scenario.outcome, repository) : undefined;
  let after;
  let failure;
  const engineerStep = (body, turn) => {
    const step = (calls, answer, offset) => {
      const index = turn - offset;
      if (index < calls.length) return { blocks: [toolUse(`toolu_eng_${turn}`, calls[index].name, calls[index].input)] };
      return { blocks: [text(answer)] };
    };
    if (scenario.mode === "self") return step(exploration, `${claimText(repository.truth)}.`, 0);
    if (turn === 0) return { blocks: [toolUse("toolu_eng_find", "find_tools", { names: [via] })] };
    if (turn === 1) {
      if (!toolNamesOf(body).includes(via)) {
        failure = `--via ${via}: find_tools did not load ${via} (the engineer's request offers: ${toolNamesOf(body).join(", ")})`;
        return { blocks: [text("stopped: the tool under test is missing")] };
      }
      const input = via === "delegate" ? { agent: "librarian", task: TASK, max_tokens: 2000 } : { query: TASK, max_tokens: 2000 };
      return { blocks: [toolUse(HANDOFF_ID, via, input)] };
    }
    after ??= afterConsultation(toolResultText(body, HANDOFF_ID) ?? "", scenario.policy, repository, exploration);
    return step(after.calls, after.answer, 2);
  };
  const server = await startFakeMessagesServer({
    plan: (body) => {
      const turn = assistantTurns(body);
      return systemOf(body).includes(LIBRARIAN) ? librarianStep(body, turn, exploration, share) : engineerStep(body, turn);
    },
  });
  const env = benchEnv(base, server);
  const services = product.openProject({ root, env });
  try {
    const index = services.indexer.run();
    for (let step = await index.next(); !step.done; step = await index.next());
    const windows = [];
    const failedTools = [];
    let handedBack = "";
    const noteTool = (event, who) => {
      if (event.type === "tool_result" && event.isError) failedTools.push(`${who} ${event.name}: ${String(event.output).slice(0, 200)}`);
    };
    const result = await runPrompt(product.openAgentSession, services, env, PROMPT, (event) => {
      if (event.type === "context_window") windows.push(event.usedTokens);
      if (event.type === "tool_result" && event.id === HANDOFF_ID) handedBack = event.output;
      noteTool(event, "engineer");
      if (event.type === "subagent_event") noteTool(event.event, "librarian");
    });
    const name = `${scenario.mode} ${scenario.reads} reads${scenario.mode === "consult" ? `, ${scenario.policy}, ${scenario.outcome} answer` : ""}`;
    if (failure) throw new BenchFailure(failure);
    // A model call that failed in transport (a reset or stalled connection on a loaded machine) says nothing
    // about consultation: the run is thrown away and run again (consultationRuns), and the report counts it.
    if (result.stopReason === "error" && TRANSPORT_KINDS.includes(result.error?.kind))
      throw new TransportFailure(`${name}: ${result.error.kind}: ${result.error.message}`);
    if (failedTools.length > 0) {
      const Failure = LIBRARIAN_TRANSPORT.test(failedTools[0]) ? TransportFailure : BenchFailure;
      throw new Failure(`${name}: a scripted call failed: ${failedTools[0]}`);
    }
    if (share && !handedBack.includes(share.answer))
      throw new BenchFailure(`${name}: the ${via} result does not carry the librarian's answer: ${handedBack.slice(0, 300)}`);
    const refused = server.requests.filter((request) => request.invalid);
    if (refused.length > 0) throw new BenchFailure(`${name}: the fake API refused a request: ${refused[0].invalid}`);
    const scripted = scenario.mode === "self" ? exploration.length : 2 + after.calls.length;
    if (result.stopReason !== "end_turn" || windows.length !== scripted + 1)
      throw new BenchFailure(
        `${name}: the engineer made ${windows.length} model calls, scripted ${scripted + 1} (stop: ${result.stopReason})`,
      );
    const isLibrarian = (request) => systemOf(request.body).includes(LIBRARIAN);
    const inputOf = (requests) => requests.reduce((sum, request) => sum + estimateTokens(request.body), 0);
    const librarianRequests = server.requests.filter(isLibrarian);
    const engineerRequests = server.requests.filter((request) => !isLibrarian(request));
    return {
      ...scenario,
      windowFirst: windows[0],
      windowFinal: windows.at(-1),
      windowAdded: windows.at(-1) - windows[0],
      engineerCalls: engineerRequests.length,
      librarianCalls: librarianRequests.length,
      engineerInput: inputOf(engineerRequests),
      librarianInput: inputOf(librarianRequests),
      totalInput: inputOf(server.requests),
      librarianFirst: librarianRequests.length > 0 ? estimateTokens(librarianRequests[0].body) : 0,
      cachedInput: [engineerRequests, librarianRequests].reduce(
        (sum, requests) => sum + cachedInputCost(requests.map((request) => request.body)),
        0,
      ),
      answer: result.response,
      score: scoreAnswer(result.response, repository.truth),
    };
  } finally {
    await services.close();
    await server.close();
    rmSync(base, { recursive: true, force: true });
  }
}

/** Every scenario's run for these numbers of reads, one after another; `onRun` sees each as it ends. */
export async function consultationRuns(product, { seed, via, readCounts, onRun }) {
  const measured = [];
  for (const scenario of scenarioRuns(readCounts)) {
    const discarded = [];
    for (;;) {
      try {
        const run = { ...(await consultationRun(product, scenario, seed, via)), discarded };
        onRun?.(run);
        measured.push(run);
        break;
      } catch (error) {
        if (!(error instanceof TransportFailure) || discarded.length >= TRANSPORT_RETRIES) throw error;
        discarded.push(error.message);
      }
    }
  }
  return measured;
}
