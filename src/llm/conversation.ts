import type { ChatMessage } from "./model-types.js";

/**
 * Model APIs expect user and assistant turns to alternate, starting with the
 * user. A prompt after a failed call or after tool results, or a context
 * marker beside a prompt, would follow another user message, so consecutive
 * messages of one role are sent as one, with tool results first (the
 * Messages API requires them before any text in a user message).
 */
export function alternatingMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  const merged: ChatMessage[] = [];
  for (const message of messages) {
    const previous = merged[merged.length - 1];
    if (previous && previous.role === message.role) {
      merged[merged.length - 1] = { role: previous.role, content: [...previous.content, ...message.content] };
    } else {
      merged.push({ role: message.role, content: [...message.content] });
    }
  }
  for (const message of merged) {
    if (message.role === "user") {
      message.content = [
        ...message.content.filter((block) => block.type === "tool_result"),
        ...message.content.filter((block) => block.type !== "tool_result"),
      ];
    }
  }
  if (merged[0]?.role === "assistant") merged.unshift({ role: "user", content: [{ type: "text", text: "(conversation continues)" }] });
  return merged;
}
