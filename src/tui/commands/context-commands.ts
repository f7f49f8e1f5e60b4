import { formatCount } from "../../format/numbers.js";
import type { PromptNumbers } from "../../format/prompt-numbers.js";
import type { ContextReference } from "../../store/content-types.js";
import type { TranscriptEntry } from "../transcript.js";
import type { SlashCommandContext } from "./slash-context.js";

/** What /retrieve prints at most: the transcript is for reading, the agent's own retrieval has no such cap. */
const RETRIEVE_DISPLAY_TOKENS = 20_000;

const note = (text: string, tone: "info" | "warning" | "dim" = "info"): TranscriptEntry => ({ kind: "note", tone, text });

/** `/refs`: the context references of this session, the live ones (markers in the window) first. */
export function referencesCommand(context: SlashCommandContext): void {
  const sessionId = context.agent.state.sessionId;
  const references = sessionId ? context.project.references(sessionId) : [];
  if (references.length === 0) {
    return context.agent.print(note("No context references yet: nothing has been evicted from the window in this session.", "dim"));
  }
  const live = references.filter((reference) => !reference.foldedInto);
  const folded = references.filter((reference) => reference.foldedInto);
  const numbers = context.project.promptNumbers(sessionId as string);
  const line = (reference: ContextReference) => referenceLine(reference, numbers);
  const lines = [
    `${live.length} in the window, standing for ${formatCount(live.reduce((sum, reference) => sum + reference.tokensSaved, 0))} evicted tokens:`,
    ...live.map(line),
  ];
  if (folded.length > 0) lines.push("", `${folded.length} folded into later ones:`, ...folded.map(line));
  lines.push("", "/retrieve <ref> shows what one stands for, byte for byte.");
  context.agent.print(note(lines.join("\n")));
}

/** `/retrieve <ref>`: the stored content behind a reference, as it was. */
export async function retrieveCommand(refId: string, context: SlashCommandContext): Promise<void> {
  if (!refId) return context.agent.print(note("Usage: /retrieve <ref> (see /refs)", "warning"));
  const id = refId.replace(/^\[?CTX-REF:/i, "").replace(/\W.*$/, "");
  const { reference, result } = await context.project.retrieve(id, RETRIEVE_DISPLAY_TOKENS);
  const numbers = context.project.promptNumbers(reference.sessionId);
  const header = `${reference.id}: ${numbers.describeTurns(...reference.turnRange)}, ${reference.contentIds.length} entries, ${formatCount(reference.tokensSaved)} tokens. ${reference.summary}`;
  const body = result.entries.map(
    (entry) =>
      `── prompt ${numbers.promptOf(entry.turnNumber)} · ${entry.contentType} · ${formatCount(entry.tokenCount)} tokens\n${entry.content}`,
  );
  const shown = result.entries.length;
  const rest = reference.contentIds.length - shown;
  const footer =
    rest > 0 || result.partialEntryId
      ? `Showing ${shown} of ${reference.contentIds.length} entries (${formatCount(result.totalTokens)} tokens)${result.partialEntryId ? ", the last one cut" : ""}; the agent retrieves the rest with retrieve_context.`
      : undefined;
  context.agent.print(note(header), note(body.join("\n\n"), "dim"), ...(footer ? [note(footer, "dim")] : []));
}

function referenceLine(reference: ContextReference, numbers: PromptNumbers): string {
  const folded = reference.foldedInto ? ` → ${reference.foldedInto}` : "";
  return `  ${reference.id}  ${numbers.describeTurns(...reference.turnRange)}  ${formatCount(reference.tokensSaved)} tokens  ${reference.summary}${folded}`;
}
