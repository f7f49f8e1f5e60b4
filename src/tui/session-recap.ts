import type { ReplayItem } from "../app/session-replay.js";
import { summariseCall } from "../format/call-summary.js";
import { truncate } from "./format/text.js";
import type { TranscriptEntry } from "./transcript.js";

/** How many of a resumed conversation's last items the screen shows. */
export const RECAP_ITEMS = 8;
const RECAP_LINES = 6;

/**
 * The end of a resumed conversation, so the user sees where it stopped:
 * prompts as typed and answers (shortened), the tool calls between them,
 * what the user did besides (`!command`, /undo), and where a turn was cut.
 */
export function recapEntries(items: readonly ReplayItem[]): TranscriptEntry[] {
  return items.flatMap(entriesOf).slice(-RECAP_ITEMS);
}

function entriesOf(item: ReplayItem): TranscriptEntry[] {
  switch (item.kind) {
    case "prompt":
      return [{ kind: "user", text: shorten(item.text) }];
    case "answer":
      return [{ kind: "assistant", text: shorten(item.text) }];
    case "tool":
      return [{ kind: "note", tone: "dim", text: `⏺ ${item.name}(${summariseCall(item.name, item.input)})` }];
    case "action":
      return [
        ...(item.typed ? [{ kind: "user" as const, text: shorten(item.typed) }] : []),
        ...(item.outcome ? [{ kind: "note" as const, tone: "dim" as const, text: shorten(item.outcome) }] : []),
      ];
    case "unanswered":
      return [
        {
          kind: "note",
          tone: "dim",
          text: item.reason === "interrupted by the user" ? "Interrupted" : `${item.reason[0]?.toUpperCase()}${item.reason.slice(1)}`,
        },
      ];
  }
}

function shorten(text: string): string {
  const lines = text.trim().split("\n");
  const kept = lines.slice(0, RECAP_LINES).map((line) => truncate(line, 200));
  return lines.length > RECAP_LINES ? `${kept.join("\n")}\n…` : kept.join("\n");
}
