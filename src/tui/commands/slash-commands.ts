import type { ProjectServices } from "../../app/project-services.js";
import { search } from "../../cli/commands/search-command.js";
import { formatCount } from "../../cli/format.js";
import type { AgentControls } from "../hooks/use-agent.js";
import type { BackgroundIndexing } from "../../app/background-indexing.js";
import { recapEntries } from "../session-recap.js";
import type { TranscriptEntry } from "../transcript.js";
import { SLASH_COMMANDS } from "./command-list.js";
import { referencesCommand, retrieveCommand } from "./context-commands.js";

/** What the slash commands may touch: narrow on purpose. */
export interface SlashCommandContext {
  services: ProjectServices;
  agent: Pick<AgentControls, "print" | "clear" | "switchSession" | "session" | "state">;
  indexing: Pick<BackgroundIndexing, "refreshNow" | "snapshot">;
  /** Erases the terminal (scrollback included) before a new session. */
  clearScreen(): void;
  /** The banner a cleared screen starts with. */
  banner(): TranscriptEntry;
  exit(): void;
}

const note = (text: string, tone: "info" | "warning" | "error" | "dim" = "info"): TranscriptEntry => ({ kind: "note", tone, text });

/** Runs one "/command args" line; every outcome, errors included, is printed to the transcript. */
export async function runSlashCommand(line: string, context: SlashCommandContext): Promise<void> {
  const [, name = "", rest = ""] = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim()) ?? [];
  const argument = rest.trim();
  const { agent } = context;
  try {
    switch (name) {
      case "help":
        return agent.print({ kind: "help" });
      case "search":
        return await searchCommand(argument, context);
      case "index":
        return indexCommand(context);
      case "sessions":
        return agent.print(note(sessionList(context)));
      case "resume":
        return resumeCommand(argument, context);
      case "model":
        return agent.print(note(modelText(argument, context)));
      case "refs":
        return referencesCommand(context);
      case "retrieve":
        return await retrieveCommand(argument, context);
      case "cost":
        return agent.print(note(costText(context)));
      case "clear":
        agent.switchSession();
        context.clearScreen();
        return agent.clear(context.banner(), note("New session. The index and settings are unchanged.", "dim"));
      case "exit":
      case "quit":
        return context.exit();
      default: {
        const known = SLASH_COMMANDS.map((command) => `/${command.name}`).join(", ");
        return agent.print(note(`Unknown command /${name}. Commands: ${known}. (A prompt that starts with a space goes to the model as it is.)`, "warning"));
      }
    }
  } catch (error) {
    agent.print(note((error as Error)?.message ?? String(error), "error"));
  }
}

async function searchCommand(query: string, context: SlashCommandContext): Promise<void> {
  if (!query) return context.agent.print(note("Usage: /search <query>", "warning"));
  if (context.indexing.snapshot().state === "off") {
    context.agent.print(note("Indexing is off for this project, so only what an earlier run indexed can be found.", "dim"));
  }
  const response = await search(context.services, query, { k: 10, scope: "code" });
  context.agent.print({ kind: "search", response });
  for (const message of response.degraded ?? []) context.agent.print(note(`Search degraded: ${message}`, "warning"));
}

function indexCommand(context: SlashCommandContext): void {
  const state = context.indexing.snapshot().state;
  if (state === "off" || state === "pending") {
    return context.agent.print(
      note("Indexing is off: you declined it. Run `sylk index` in this project to allow it (the answer is remembered).", "warning"),
    );
  }
  context.indexing.refreshNow();
  context.agent.print(note("Looking for changes to index…", "dim"));
}

function sessionList(context: SlashCommandContext): string {
  const sessions = context.services.sessions.list(20);
  if (sessions.length === 0) return "No sessions yet in this project.";
  const current = context.agent.state.sessionId;
  const lines = sessions.map((session) => {
    const when = new Date(session.updatedAt).toISOString().replace("T", " ").slice(0, 16);
    const tokens = formatCount(session.usage.inputTokens + session.usage.outputTokens + session.usage.cacheReadTokens);
    const marker = session.id === current ? "*" : " ";
    return `${marker} ${session.id.slice(0, 8)}  ${when}  ${session.model}  ${session.turns} turns, ${tokens} tokens  ${session.title}`;
  });
  return [...lines, "", "/resume <id> continues one (* is this session)."].join("\n");
}

function resumeCommand(id: string, context: SlashCommandContext): void {
  if (!id) return context.agent.print(note(`Usage: /resume <id>\n\n${sessionList(context)}`, "warning"));
  const session = context.agent.switchSession({ id });
  const record = context.services.sessions.get(session.sessionId);
  const title = record ? `: ${record.title} (${record.turns} turns)` : "";
  context.agent.print(note(`Resumed session ${session.sessionId.slice(0, 8)}${title}`), ...recapEntries(context.services.sessions.messages(session.sessionId)));
}

function modelText(requested: string, context: SlashCommandContext): string {
  const provider = context.agent.session.provider;
  const current = provider
    ? `Model: ${provider.model} (${provider.name}), a ${formatCount(provider.contextWindow)}-token context window.`
    : "No model is configured: answers come from the index. Set ANTHROPIC_API_KEY, or configure a provider in .sylkrc.";
  if (!requested) return current;
  return `${current}\nSwitching models needs a restart: sylk --model ${requested}`;
}

function costText(context: SlashCommandContext): string {
  const id = context.agent.state.sessionId;
  const record = id ? context.services.sessions.get(id) : undefined;
  if (!record) return "Nothing sent yet in this session.";
  const { usage } = record;
  const lines = [
    `Session ${id.slice(0, 8)}: ${record.turns} model calls`,
    `  input ${formatCount(usage.inputTokens)} · output ${formatCount(usage.outputTokens)} · ` +
      `cache read ${formatCount(usage.cacheReadTokens)} · cache write ${formatCount(usage.cacheWriteTokens)} tokens`,
  ];
  const window = context.agent.state.windowTokens ?? context.agent.session.provider?.contextWindow;
  const inWindow = context.agent.state.contextTokens;
  if (window && inWindow !== undefined) {
    lines.push(`  in the window now: ${formatCount(inWindow)} of ${formatCount(window)} tokens (${Math.round((inWindow / window) * 100)}%)`);
  }
  return lines.join("\n");
}
