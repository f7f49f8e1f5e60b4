import type { ChatMessage } from "./model-types.js";

/**
 * Model APIs expect user and assistant turns to alternate. A prompt after a
 * failed call (or after tool results) would follow another user message, so
 * consecutive messages of one role are sent as one.
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
  return merged;
}
