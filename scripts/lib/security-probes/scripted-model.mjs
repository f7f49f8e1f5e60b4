// The scripted model of the probes: a fake Messages API (../fake-messages-server.mjs) answering
// each request with the next queued step, and what it received, to look for what must not arrive.
import { startFakeMessagesServer } from "../fake-messages-server.mjs";

/** A text block of a scripted answer. */
export const say = (text) => ({ type: "text", text });
/** A tool call of a scripted answer (its id is given when it is queued). */
export const call = (name, input) => ({ type: "tool_use", name, input });

/**
 * A fake Messages API answering each request with the next queued step (a list of blocks, or a
 * step object of fake-messages-server.mjs: status, headers, hang); "Done." when the queue is empty.
 */
export async function startScriptedModel() {
  const queue = [];
  let ids = 0;
  const server = await startFakeMessagesServer({ plan: () => queue.shift() ?? { blocks: [say("Done.")] } });
  const withIds = (blocks) =>
    blocks.map((block) => (block.type === "tool_use" && !block.id ? { ...block, id: `toolu_probe_${++ids}` } : block));
  return {
    baseUrl: server.baseUrl,
    requests: server.requests,
    /** Forgets steps a previous run left unanswered. */
    reset() {
      queue.length = 0;
    },
    /** Queues steps, answered in order. */
    enqueue(...steps) {
      for (const step of steps)
        queue.push(Array.isArray(step) ? { blocks: withIds(step) } : step.blocks ? { ...step, blocks: withIds(step.blocks) } : step);
    },
    /** Everything the API received (bodies and headers) as one text, to look for what must not arrive. */
    received() {
      return server.requests.map((request) => JSON.stringify(request.headers) + JSON.stringify(request.body)).join("\n");
    },
    /** The system prompt and messages of the request `index` (from 0) as one text. */
    requestText(index) {
      const request = server.requests[index];
      return request ? JSON.stringify(request.body) : "";
    },
    /** The tool results the model was sent, in order: { id, content, isError }. */
    toolResults() {
      const results = new Map();
      for (const request of server.requests) {
        for (const message of request.body.messages ?? []) {
          if (!Array.isArray(message.content)) continue;
          for (const block of message.content) {
            if (block.type === "tool_result")
              results.set(block.tool_use_id, { id: block.tool_use_id, content: textOf(block.content), isError: block.is_error === true });
          }
        }
      }
      return [...results.values()];
    },
    close: () => server.close(),
  };
}

function textOf(content) {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((part) => part.text ?? "").join("\n") : "";
}
