import { handoffNote, hookIsShown, hookNote, mcpFailureNote, type AgentEvent } from "../agent/agent-events.js";
import { summariseCall } from "../format/call-summary.js";
import type { McpServerSummary } from "../mcp/session/start-mcp-servers.js";
import { terminalJson } from "../format/terminal-json.js";
import { resultJson, toStreamJson } from "./stream-json.js";
import { terminalField, terminalText } from "./terminal-text.js";

export type OutputFormat = "text" | "json" | "stream-json";
export const OUTPUT_FORMATS: readonly OutputFormat[] = ["text", "json", "stream-json"];

/** Turns the agent's event stream into one output format. */
export interface AskPrinter {
  event(event: AgentEvent): void;
}

interface Streams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

/** What the `init` event says of the run beyond the agent's own events. */
export interface RunFacts {
  /** How commands run: `bubblewrap`, `sandbox-exec`, `off` or `unavailable`. */
  sandbox: string;
  /** The main agent's type; its id is `<type>-1` until a handoff names the next. */
  agentType: string;
  /** The MCP servers configured, each with its state when the run starts (`init.mcp_servers`). */
  mcpServers: () => readonly McpServerSummary[];
}

export function createPrinter(format: OutputFormat, streams: Streams, facts: RunFacts): AskPrinter {
  switch (format) {
    case "text":
      return new TextPrinter(streams);
    case "json":
      return new JsonPrinter(streams);
    case "stream-json":
      return new StreamJsonPrinter(streams, facts);
  }
}

/**
 * Progress (tool calls, retries, errors) on stderr, the answer on stdout. On
 * a terminal the answer streams as it comes (each model call's text); piped,
 * stdout gets the final answer alone, at the end, and an interrupted run
 * still prints what had arrived of it. Everything from the model, its tools
 * and the project is written with control characters shown escaped
 * (`terminalText`), piped or not; line breaks and tabs stay.
 */
class TextPrinter implements AskPrinter {
  /** Text of the model call in progress. */
  private partial = "";
  /** Something was streamed to the terminal and not yet ended with a newline. */
  private openLine = false;

  constructor(private readonly streams: Streams) {}

  private get live(): boolean {
    return this.streams.stdout.isTTY === true;
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case "turn_start":
        this.partial = "";
        break;
      case "text_delta":
        this.partial += event.text;
        if (this.live) {
          this.out(event.text);
          this.openLine = !event.text.endsWith("\n");
        }
        break;
      case "assistant_message":
        this.partial = "";
        this.endLine();
        break;
      case "tool_use":
        this.err(`⏺ ${terminalField(event.name)}(${summariseCall(event.name, event.input)})\n`);
        break;
      case "attached":
        this.err(`Attached ${event.files.map((file) => `${terminalField(file.path)}:${file.startLine}-${file.endLine}`).join(", ")}\n`);
        break;
      case "tool_result":
        this.err(`  ⎿ ${event.isError ? "✗ " : ""}${firstLine(event.display ?? event.output)}\n`);
        break;
      case "retry":
        if (this.live && this.partial) {
          this.endLine();
          this.err("(the answer above was cut off; it comes again)\n");
        }
        this.partial = "";
        this.err(
          `Model call failed (${event.reason}); retrying in ${Math.round(event.delayMs / 100) / 10} s (attempt ${event.attempt}).\n`,
        );
        break;
      case "error":
        this.err(`sylk: ${event.message}\n`);
        break;
      case "prefetch":
        this.err(
          `Context: added ${[...event.excerpts, ...event.hints].map((item) => terminalField(item.source)).join(", ")} (${event.tokens} tokens)\n`,
        );
        break;
      case "handoff":
        this.err(`${handoffNote(event)}\n`);
        break;
      case "hook":
        if (hookIsShown(event)) this.err(`sylk: ${hookNote(event)}\n`);
        break;
      case "mcp_server":
        if (event.state === "failed") this.err(`sylk: ${mcpFailureNote(event)}\n`);
        break;
      case "context_eviction":
        this.err(
          `Context: turns ${event.reference.turnRange[0]}-${event.reference.turnRange[1]} moved out of the window as ${event.marker}\n`,
        );
        break;
      case "subagent_event":
        this.subAgentLine(event, 1);
        break;
      case "pipeline_stage":
        this.err(
          event.status === "start"
            ? `▸ stage ${event.stage}${event.round > 0 ? ` (round ${event.round})` : ""}: ${event.agentId}\n`
            : `  ⎿ ${event.stage}: ${event.outcome === "no_structure" ? "ended without its structured report" : (event.outcome ?? "done")}\n`,
        );
        break;
      case "done": {
        this.endLine();
        // Interrupted mid-answer: what had arrived of it is the answer there is.
        const answer = event.result.stopReason === "interrupted" && this.partial.trim() ? this.partial : event.result.response;
        if (!this.live && answer) this.out(`${answer.replace(/\n*$/, "")}\n`);
        if (event.result.stopReason === "max_turns") {
          this.err(`Stopped after ${event.result.turns} model calls (--max-turns); \`sylk ask --continue\` goes on.\n`);
        }
        break;
      }
      default:
        break;
    }
  }

  /** A sub-agent's tool calls, indented under the call that started it; its text never reaches stdout. */
  private subAgentLine(event: Extract<AgentEvent, { type: "subagent_event" }>, depth: number): void {
    const indent = "  ".repeat(depth);
    const inner = event.event;
    const agent = terminalField(event.agentId);
    if (inner.type === "subagent_event") this.subAgentLine(inner, depth + 1);
    else if (inner.type === "tool_use")
      this.err(`${indent}⏺ ${agent} ${terminalField(inner.name)}(${summariseCall(inner.name, inner.input)})\n`);
    else if (inner.type === "tool_result")
      this.err(`${indent}  ⎿ ${inner.isError ? "✗ " : ""}${firstLine(inner.display ?? inner.output)}\n`);
    else if (inner.type === "error") this.err(`${indent}sylk: ${agent}: ${inner.message}\n`);
    else if (inner.type === "hook" && hookIsShown(inner)) this.err(`${indent}sylk: ${agent}: ${hookNote(inner)}\n`);
  }

  /** The answer, on stdout. */
  private out(text: string): void {
    this.streams.stdout.write(terminalText(text));
  }

  /** Progress, on stderr. */
  private err(text: string): void {
    this.streams.stderr.write(terminalText(text));
  }

  private endLine(): void {
    if (!this.openLine) return;
    this.streams.stdout.write("\n");
    this.openLine = false;
  }
}

class JsonPrinter implements AskPrinter {
  constructor(private readonly streams: Streams) {}

  event(event: AgentEvent): void {
    if (event.type === "done") this.streams.stdout.write(`${terminalJson(resultJson(event.result))}\n`);
  }
}

/**
 * One JSON event per line: init, message deltas, tool_use, tool_output,
 * tool_result, retry, error, result, and sub-agents' starts and ends. Every
 * line names its agent (`agent_id`, `agent_type`); a sub-agent's lines also
 * name the call that started it (`parent_tool_use_id`).
 */
class StreamJsonPrinter implements AskPrinter {
  /** The main agent's instance: a handoff names the next. */
  private agentId: string;

  constructor(
    private readonly streams: Streams,
    private readonly facts: RunFacts,
  ) {
    this.agentId = `${facts.agentType}-1`;
  }

  event(event: AgentEvent): void {
    if (event.type === "handoff") this.agentId = event.toAgent;
    const line = this.lineOf(event, { agent_id: this.agentId, agent_type: this.facts.agentType });
    if (line) this.streams.stdout.write(`${terminalJson(line)}\n`);
  }

  private lineOf(event: AgentEvent, agent: Record<string, string>): Record<string, unknown> | undefined {
    // A sub-agent's own event, as its line (a sub-agent's sub-agent is unwrapped twice).
    if (event.type === "subagent_event") {
      return this.lineOf(event.event, { agent_id: event.agentId, agent_type: event.agentType, parent_tool_use_id: event.parentToolUseId });
    }
    const line =
      event.type === "session_start"
        ? { ...toStreamJson(event), sandbox: this.facts.sandbox, mcp_servers: this.facts.mcpServers() }
        : toStreamJson(event);
    // A sub-agent's start and end name the sub-agent itself.
    return line ? { ...agent, ...line } : undefined;
  }
}

function firstLine(text: string): string {
  const line = terminalField(text.split("\n")[0] ?? "");
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
