import { formatCount } from "../../format/numbers.js";
import { PromptNumbers } from "../../format/prompt-numbers.js";
import { modelDescription } from "../format/session-figures.js";
import { sessionLine } from "../../format/session-lines.js";
import type { AgentSession } from "../../app/session/open-agent-session.js";
import type { RestoreResult } from "../../app/file-checkpoints.js";
import { renderReference } from "../../context/context-reference.js";
import { estimateCost, formatDollars } from "../../llm/model-prices.js";
import { evictionNote } from "../agent-state.js";
import { RECAP_ITEMS, recapEntries } from "../session-recap.js";
import type { TranscriptEntry } from "../transcript.js";
import { learningLines } from "../../learning/session/retrieval-learning-report.js";
import { referencesCommand, retrieveCommand } from "./context-commands.js";
import { doctorCommand } from "./doctor-command.js";
import { initCommand } from "./init-command.js";
import { mcpCommand, mcpPromptCommand } from "./mcp-command.js";
import { permissionsCommand } from "./permissions-command.js";
import { statusCommand } from "./status-command.js";
import { addUsage, EMPTY_USAGE, type Usage } from "../../llm/model-types.js";
import type { SessionRecord } from "../../store/session-repository.js";
import type { SlashCommandContext } from "./slash-context.js";

export type { SlashCommandContext };
import { errorMessage } from "../../errors.js";

const note = (text: string, tone: "info" | "warning" | "error" | "dim" = "info"): TranscriptEntry => ({ kind: "note", tone, text });

/**
 * Commands that change what a running turn works on (its window, the files
 * it edits): run beside it they would race it, so they wait for no turn.
 */
const NOT_WHILE_RUNNING = new Set(["evict", "undo", "rewind"]);

/** Runs one "/command args" line; every outcome, errors included, is printed to the transcript. */
export async function runSlashCommand(line: string, context: SlashCommandContext): Promise<void> {
  const [, name = "", rest = ""] = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim()) ?? [];
  const argument = rest.trim();
  const { agent } = context;
  if (NOT_WHILE_RUNNING.has(name) && agent.state.running)
    return agent.print(
      note(`A turn is running: /${name} would change what it is working on. Wait for it to end, or press Esc to stop it first.`, "warning"),
    );
  try {
    switch (name) {
      case "help":
        return agent.print({ kind: "help", commands: context.menu.all() });
      case "search":
        return await searchCommand(argument, context);
      case "index":
        return indexCommand(context);
      case "sessions":
        return agent.print(note(sessionList(context)));
      case "resume":
        return resumeCommand(argument, context);
      case "model":
        return modelCommand(argument, context);
      case "evict":
        return await evictCommand(context);
      case "handoff":
        return agent.print(note(agent.session.requestHandoff(), "dim"));
      case "undo":
        return await undoCommand(argument, context);
      case "rewind":
        return await rewindCommand(argument, context);
      case "diff":
        return diffCommand(context);
      case "refs":
        return referencesCommand(context);
      case "retrieve":
        return await retrieveCommand(argument, context);
      case "learning":
        return agent.print(note(learningText(agent.session)));
      case "cost":
        return agent.print(note(costText(context)));
      case "memory":
        return agent.print(note(memoryText(argument, context)));
      case "doctor":
        return await doctorCommand(context);
      case "status":
        return statusCommand(context);
      case "permissions":
        return permissionsCommand(argument, context);
      case "init":
        return initCommand(argument, context);
      case "config":
        return agent.print(note(context.project.configuration().join("\n")));
      case "pipeline":
        if (!argument)
          return agent.print(
            note("Usage: /pipeline <task> (the team plans, designs, implements, reviews and fixes, tests and sums up)", "warning"),
          );
        return agent.submit(`/pipeline ${argument}`);
      case "clear":
        agent.switchSession();
        context.clearScreen();
        return agent.clear(context.banner(), note("New session. The index and settings are unchanged.", "dim"));
      case "mcp":
        return mcpCommand(context);
      case "exit":
      case "quit":
        return context.exit();
      default: {
        if (name.startsWith("mcp__") && (await mcpPromptCommand(line, context))) return;
        const unloaded = context.project.customCommands().errors.find((error) => error.name === name);
        if (unloaded) return agent.print(note(`/${name} did not load from ${unloaded.path}: ${unloaded.message}.`, "warning"));
        const known = context.menu
          .all()
          .map((command) => `/${command.name}`)
          .join(", ");
        return agent.print(
          note(`Unknown command /${name}. Commands: ${known}. (A prompt that starts with a space goes to the model as it is.)`, "warning"),
        );
      }
    }
  } catch (error) {
    agent.print(note(errorMessage(error), "error"));
  }
}

async function searchCommand(query: string, context: SlashCommandContext): Promise<void> {
  if (!query) return context.agent.print(note("Usage: /search <query>", "warning"));
  if (context.indexing.snapshot().state === "off") {
    context.agent.print(note("Indexing is off for this project, so only what an earlier run indexed can be found.", "dim"));
  }
  const response = await context.project.searchCode(query, 10);
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
  const sessions = context.project.sessions(20);
  if (sessions.length === 0) return "No sessions yet in this project.";
  const current = context.agent.state.sessionId;
  const lines = sessions.map(({ session, chain }) => `${session.id === current ? "*" : " "} ${sessionLine(session, chain)}`);
  return [...lines, "", "/resume <id> continues one (* is this session)."].join("\n");
}

function resumeCommand(id: string, context: SlashCommandContext): void {
  if (!id) return context.agent.print(note(`Usage: /resume <id>\n\n${sessionList(context)}`, "warning"));
  const session = context.agent.switchSession({ id });
  const recap = context.project.recap(session.sessionId, RECAP_ITEMS);
  const title = recap ? `: ${recap.title} (${recap.prompts} ${recap.prompts === 1 ? "prompt" : "prompts"})` : "";
  context.agent.print(note(`Resumed session ${session.sessionId.slice(0, 8)}${title}`), ...recapEntries(recap?.items ?? []));
}

function modelText(session: AgentSession): string {
  return session.provider
    ? `Model: ${modelDescription(session.provider)}.`
    : "No model is configured: answers come from the index. Set ANTHROPIC_API_KEY, or configure a provider in .sylkrc.";
}

/** `/model` says which model answers; `/model <name>` goes on with another, in the same conversation. */
function modelCommand(requested: string, context: SlashCommandContext): void {
  if (!requested) return context.agent.print(note(modelText(context.agent.session)));
  const session = context.switchModel(requested);
  context.agent.print(note(session.provider ? `${modelText(session)} The conversation goes on with it.` : modelText(session)));
}

/** `/undo [force]`: the last prompt's file edits taken back, byte for byte. */
async function undoCommand(argument: string, context: SlashCommandContext): Promise<void> {
  const forced = argument === "force";
  const result = await context.agent.session.undo(forced);
  context.agent.print(
    note(
      restoreText(result, "Nothing to undo: this session has made no file edits (or they were undone).", forced, promptNumbers(context)),
    ),
  );
}

/** The session's prompts, numbered as the user counts them (none before the first prompt is stored). */
function promptNumbers(context: SlashCommandContext): PromptNumbers {
  const { session } = context.agent;
  return session.started ? context.project.promptNumbers(session.sessionId) : new PromptNumbers([]);
}

/** `/rewind` lists the prompts with edits; `/rewind <prompt> [force]` takes back every edit made after that prompt. */
async function rewindCommand(argument: string, context: SlashCommandContext): Promise<void> {
  const [prompt, force] = argument.split(/\s+/);
  const numbers = promptNumbers(context);
  if (!prompt) {
    const groups = context.agent.session.editGroups();
    if (groups.length === 0) return context.agent.print(note("This session has no file edits to rewind.", "dim"));
    const lines = groups.map((group) => `  prompt ${numbers.promptOf(group.promptTurn)}: ${group.files.join(", ")}`);
    return context.agent.print(
      note(["Edits by prompt (/rewind <prompt> takes back every edit after that prompt; 0: all):", ...lines].join("\n")),
    );
  }
  if (!/^\d+$/.test(prompt)) return context.agent.print(note("Usage: /rewind [prompt] [force]", "warning"));
  const turn = numbers.turnOf(Number(prompt));
  if (turn === undefined) {
    return context.agent.print(
      note(`This session has ${numbers.count} ${numbers.count === 1 ? "prompt" : "prompts"}: /rewind 0 to ${numbers.count}.`, "warning"),
    );
  }
  const result = await context.agent.session.rewind(turn, force === "force");
  context.agent.print(note(restoreText(result, `Nothing to rewind after prompt ${prompt}.`, force === "force", numbers)));
}

function restoreText(result: RestoreResult, nothing: string, forced: boolean, numbers: PromptNumbers): string {
  const { conflicts, refused } = result;
  const refusals = refused.map(({ path, reason }) => `${path} cannot be restored: ${reason}`);
  if (result.restored.length === 0 && (conflicts.length > 0 || refused.length > 0)) {
    const changed =
      conflicts.length > 0 ? `Nothing was restored: ${conflicts.join(", ")} changed since Sylk edited it.` : "Nothing was restored.";
    return [changed, ...refusals, ...(forced ? [] : [forceHint(result)])].join("\n");
  }
  if (result.restored.length === 0) return nothing;
  const prompts = result.promptTurns.map((turn) => numbers.promptOf(turn));
  const which = prompts.length === 1 ? `prompt ${prompts[0]}` : `prompts ${prompts.join(", ")}`;
  return [`Restored ${result.restored.join(", ")} to before ${which}. The model is told with your next prompt.`, ...refusals].join("\n");
}

/** What "force" would do when nothing moved: overwrite the changes, and leave what cannot be restored as it is. */
function forceHint({ conflicts, refused }: RestoreResult): string {
  const left = refused.map(({ path }) => path).join(", ");
  const stays = refused.length === 1 ? "stays" : "stay";
  if (conflicts.length > 0) return `Add "force" to overwrite those changes too${refused.length > 0 ? ` (${left} ${stays} as now)` : ""}.`;
  return `Add "force" to restore the rest and leave ${left} as ${refused.length === 1 ? "it is" : "they are"}.`;
}

/** `/diff`: what this session's edits changed. */
function diffCommand(context: SlashCommandContext): void {
  const diff = context.agent.session.diff();
  if (!diff) return context.agent.print(note("This session has not changed any file (or its edits were undone).", "dim"));
  context.agent.print({ kind: "diff", diff });
}

/** `/evict`: the older turns leave the window now, each part replaced by a reference that brings it back. */
async function evictCommand(context: SlashCommandContext): Promise<void> {
  const references = await context.agent.session.evictNow();
  if (references.length === 0) {
    return context.agent.print(
      note("Nothing to move out of the window: only the recent turns are in it (or nothing was sent yet).", "dim"),
    );
  }
  context.agent.print(...references.map((reference) => note(evictionNote(reference, renderReference(reference)), "dim")));
}

function costText(context: SlashCommandContext): string {
  const id = context.agent.state.sessionId;
  const cost = id ? context.project.cost(id) : undefined;
  if (!cost) return "Nothing sent yet in this session.";
  const record = cost.session;
  const { usage } = record;
  const dollars = estimateCost(record.model, usage);
  const lines = [
    `Session ${id.slice(0, 8)}: ${record.turns} model calls`,
    `  input ${formatCount(usage.inputTokens)} · output ${formatCount(usage.outputTokens)} · ` +
      `cache read ${formatCount(usage.cacheReadTokens)} · cache write ${formatCount(usage.cacheWriteTokens)} tokens`,
    dollars === undefined
      ? `  no price known for ${record.model}, so no estimate in dollars`
      : `  about ${formatDollars(dollars)} at ${record.model}'s list prices (an estimate)`,
  ];
  const window = context.agent.state.windowTokens ?? context.agent.session.provider?.contextWindow;
  const inWindow = context.agent.state.contextTokens;
  if (window && inWindow !== undefined) {
    lines.push(
      `  in the window now: ${formatCount(inWindow)} of ${formatCount(window)} tokens (${Math.round((inWindow / window) * 100)}%)`,
    );
  }
  return [...lines, ...subAgentCostLines(cost.subAgents)].join("\n");
}

/** The session tree's sub-agents, one line per agent type, and the tree's total. */
function subAgentCostLines(children: readonly SessionRecord[]): string[] {
  if (children.length === 0) return [];
  const byType = new Map<string, { runs: number; usage: Usage; dollars: number | undefined }>();
  for (const child of children) {
    const type = child.agentType ?? "agent";
    const seen = byType.get(type) ?? { runs: 0, usage: EMPTY_USAGE, dollars: 0 };
    const dollars = estimateCost(child.model, child.usage);
    byType.set(type, {
      runs: seen.runs + 1,
      usage: addUsage(seen.usage, child.usage),
      dollars: seen.dollars === undefined || dollars === undefined ? undefined : seen.dollars + dollars,
    });
  }
  return [
    "Sub-agents (each in a session of its own):",
    ...[...byType].map(
      ([type, { runs, usage, dollars }]) =>
        `  ${type}: ${runs} run${runs === 1 ? "" : "s"} · input ${formatCount(usage.inputTokens)} · output ${formatCount(usage.outputTokens)} · ` +
        `cache read ${formatCount(usage.cacheReadTokens)} tokens${dollars === undefined ? "" : ` · about ${formatDollars(dollars)}`}`,
    ),
  ];
}

/** `/memory …`: what `sylk memory …` prints. */
function memoryText(argument: string, context: SlashCommandContext): string {
  return context.project.memory(argument).join("\n");
}

/** `/learning`: what `sylk learning` prints. */
function learningText(session: AgentSession): string {
  const summary = session.learning();
  if (!summary) return "Self-tuning retrieval is off (learning.enabled, or prefetch, is off): each prompt gets the starting settings.";
  return learningLines(summary).join("\n");
}
