import type { SlashCommandContext } from "./slash-context.js";

/**
 * `/init`: an AGENTS.md at the project root from the index (languages,
 * build and test commands, layout, entry points), with no model call. An
 * existing AGENTS.md is never replaced: what it holds, people wrote, and
 * the index cannot know it; the text is shown to take from instead.
 */
export function initCommand(argument: string, context: SlashCommandContext): void {
  const { agent, project } = context;
  if (argument)
    return agent.print({
      kind: "note",
      tone: "warning",
      text: "Usage: /init (writes AGENTS.md from the index; an existing one is left as it is)",
    });
  if (context.indexing.snapshot().state === "off") {
    return agent.print({
      kind: "note",
      tone: "warning",
      text: "Indexing is off for this project, so /init has nothing to read. Run `sylk index` to allow it.",
    });
  }
  const { written, text } = project.initAgentsFile();
  const lines = text.trimEnd().split("\n").length;
  const said = written
    ? `Wrote AGENTS.md (${lines} lines) from the index; no model was asked. Sylk reads it from the next conversation on (/clear starts one). Edit it to add what only people know.`
    : "AGENTS.md is already there, so it was left as it is. This is what /init would write: copy what it lacks into it, or move it away and run /init again.";
  agent.print({ kind: "note", tone: written ? "info" : "warning", text: said }, { kind: "note", tone: "dim", text });
}
