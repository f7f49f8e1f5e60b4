import type { ChatMessage } from "../llm/model-types.js";
import { summariseInput, truncate } from "./format/text.js";
import type { TranscriptEntry } from "./transcript.js";

const RECAP_ENTRIES = 8;
const RECAP_LINES = 6;
/** Text the engine put in the conversation itself (prefetched excerpts, eviction markers): not what anyone said. */
const ENGINE_MARKER = /^\s*\[(AUTO-RETRIEVED|CTX-REF)\b/;

/**
 * The end of a resumed conversation, so the user sees where it stopped:
 * prompts and answers (shortened) and the tool calls between them.
 */
export function recapEntries(messages: readonly ChatMessage[]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === "text" && block.text.trim() && !ENGINE_MARKER.test(block.text)) {
        entries.push({ kind: message.role === "user" ? "user" : "assistant", text: shorten(block.text) });
      } else if (block.type === "tool_use") {
        entries.push({ kind: "note", tone: "dim", text: `⏺ ${block.name}(${summariseInput(block.input)})` });
      }
    }
  }
  return entries.slice(-RECAP_ENTRIES);
}

function shorten(text: string): string {
  const lines = text.trim().split("\n");
  const kept = lines.slice(0, RECAP_LINES).map((line) => truncate(line, 200));
  return lines.length > RECAP_LINES ? `${kept.join("\n")}\n…` : kept.join("\n");
}
