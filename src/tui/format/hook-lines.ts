import { type AgentEvent, hookIsShown, hookNote } from "../../agent/agent-events.js";
import type { TranscriptEntry } from "../transcript.js";

/** A hook's line in the transcript: one for a hook that blocked, failed or has a message; none for a quiet success. */
export function hookLines(event: Extract<AgentEvent, { type: "hook" }>): TranscriptEntry[] {
  if (!hookIsShown(event)) return [];
  return [{ kind: "note", tone: event.outcome === "ok" ? "dim" : "warning", text: hookNote(event) }];
}
