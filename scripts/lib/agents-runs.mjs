// What bench-agents.mjs's measurements share: the environment a run's project opens with, running one
// prompt to its end, and reading the fake Messages API's requests (which agent asks, what it has done).
import { join } from "node:path";

export class BenchFailure extends Error {}

export const LIBRARIAN = "## Your role: librarian";

export const systemOf = (body) =>
  Array.isArray(body.system) ? body.system.map((block) => block.text).join("\n") : String(body.system ?? "");
export const toolNamesOf = (body) => (body.tools ?? []).map((tool) => tool.name);
export const assistantBlocks = (body) =>
  body.messages.filter((message) => message.role === "assistant" && Array.isArray(message.content)).flatMap((message) => message.content);
/** How many model turns the conversation so far holds: the index of the turn this request asks for. */
export const assistantTurns = (body) => body.messages.filter((message) => message.role === "assistant").length;
export const callsOf = (body, name) => assistantBlocks(body).filter((block) => block.type === "tool_use" && block.name === name).length;
export const text = (value) => ({ type: "text", text: value });
export const toolUse = (id, name, input) => ({ type: "tool_use", id, name, input });

/** The text of the tool result answering call `id` in this request's messages, or undefined before it came. */
export function toolResultText(body, id) {
  for (const message of body.messages) {
    if (message.role !== "user" || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type !== "tool_result" || block.tool_use_id !== id) continue;
      return typeof block.content === "string" ? block.content : block.content.map((part) => part.text ?? "").join("\n");
    }
  }
  return undefined;
}

/** Prefetch and self-tuning retrieval off, so nothing but the scripted calls enters a window. */
export function benchEnv(base, server, extra = {}) {
  return {
    ...process.env,
    HOME: base,
    SYLK_HOME: join(base, "home"),
    ANTHROPIC_API_KEY: "bench",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    SYLK_CONTEXT_PREFETCH: "false",
    SYLK_LEARNING_ENABLED: "false",
    ...extra,
  };
}

/** Runs one prompt to its end in a new session; `onEvent(event, now)` sees every event as it arrives. */
export async function runPrompt(openAgentSession, services, env, prompt, onEvent) {
  const session = openAgentSession({ services, env });
  try {
    const run = session.run(prompt, new AbortController().signal);
    let step = await run.next();
    for (; !step.done; step = await run.next()) onEvent(step.value, performance.now());
    return step.value;
  } finally {
    session.close();
  }
}
