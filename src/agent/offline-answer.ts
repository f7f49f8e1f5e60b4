import type { CodeSearchHit, HybridCodeSearcher } from "../search/hybrid-code-searcher.js";
import { EMPTY_USAGE } from "../llm/model-types.js";
import type { AgentEvent, AgentResult } from "./agent-events.js";
import type { SessionRecorder } from "./session-recorder.js";

const EXCERPTS = 5;
const EXCERPT_LINES = 30;

/**
 * `sylk ask` with no model: the most relevant excerpts of the index, each
 * cited as path:start-end, and a plain statement that no model was used and
 * how to configure one. Recorded like any answer, so history search finds it.
 */
export async function* answerFromIndex(
  deps: { searcher: Pick<HybridCodeSearcher, "search">; recorder: SessionRecorder; reason: string },
  prompt: string,
): AsyncGenerator<AgentEvent, AgentResult> {
  const { recorder } = deps;
  yield { type: "session_start", sessionId: recorder.session.id, resumed: false, provider: "none", model: "index-only" };
  const turn = recorder.nextTurn();
  const promptId = await recorder.recordPrompt(prompt, turn);
  yield { type: "turn_start", turn };
  const outcome = await deps.searcher.search(prompt, { limit: EXCERPTS });
  const text = renderAnswer(outcome.hits, deps.reason, outcome.degraded);
  yield { type: "text_delta", text };
  await recorder.recordResponse(
    turn,
    { content: [{ type: "text", text }], stopReason: "end_turn", usage: EMPTY_USAGE, model: "index-only" },
    promptId,
  );
  yield { type: "assistant_message", turn, text, toolCalls: 0 };
  const result: AgentResult = {
    sessionId: recorder.session.id,
    response: text,
    stopReason: "end_turn",
    turns: 1,
    toolCalls: 0,
    usage: EMPTY_USAGE,
  };
  yield { type: "done", result };
  return result;
}

function renderAnswer(hits: readonly CodeSearchHit[], reason: string, degraded: readonly string[]): string {
  const lines = [`No model was used (${reason}), so this answer is the most relevant code from the project's index:`, ""];
  if (hits.length === 0) lines.push("The index has nothing that matches this question.", "");
  hits.forEach((hit, index) => {
    const excerpt = hit.content.split("\n").slice(0, EXCERPT_LINES);
    const end = hit.startLine + excerpt.length - 1;
    lines.push(`${index + 1}. ${hit.path}:${hit.startLine}-${end}`, `\`\`\`${hit.language ?? ""}`, ...excerpt, "```", "");
  });
  for (const message of degraded) lines.push(`(Search was degraded: ${message})`);
  lines.push(
    "To get answers from a model, set ANTHROPIC_API_KEY, or configure another provider in .sylkrc " +
      '(model.provider "openai-compatible" with model.baseUrl and model.name; see .sylkrc.example).',
  );
  return lines.join("\n");
}
