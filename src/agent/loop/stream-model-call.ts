import { ModelError } from "../../llm/model-errors.js";
import type { ModelProvider, ModelRequest, ModelResponse } from "../../llm/model-types.js";
import type { AgentEvent, AgentResult } from "../agent-events.js";
import { errorMessage } from "../../errors.js";

/** How a model call ended: with its response, or stopped, with what had arrived of the answer. */
export type ModelCallOutcome =
  | { response: ModelResponse }
  | { stopped: "interrupted"; partial: string }
  | { stopped: "error"; error: NonNullable<AgentResult["error"]>; partial: string };

/**
 * The second phase of a turn: the request streamed to the model, its text
 * passed on as it arrives (a retry says to discard what came before). A
 * call that fails after the provider's retries is a fatal error event; one
 * the user interrupted is not an error.
 */
export async function* streamModelCall(
  provider: ModelProvider,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<AgentEvent, ModelCallOutcome> {
  let response: ModelResponse | undefined;
  // What has arrived of the answer: recorded if the call never completes.
  let partial = "";
  try {
    for await (const event of provider.stream(request, signal)) {
      if (event.type === "text_delta") {
        partial += event.text;
        yield { type: "text_delta", text: event.text };
      } else if (event.type === "retry") {
        partial = "";
        yield { type: "retry", attempt: event.attempt, delayMs: event.delayMs, reason: event.reason };
      } else if (event.type === "complete") response = event.response;
    }
  } catch (raw) {
    const error = raw instanceof ModelError ? raw : new ModelError(errorMessage(raw), "unknown", false);
    if (error.kind === "aborted" || signal.aborted) return { stopped: "interrupted", partial };
    yield { type: "error", kind: error.kind, message: error.message, fatal: true };
    return { stopped: "error", error: { kind: error.kind, message: error.message }, partial };
  }
  if (response) return { response };
  const message = "The model stream ended without a response.";
  yield { type: "error", kind: "unknown", message, fatal: true };
  return { stopped: "error", error: { kind: "unknown", message }, partial };
}
