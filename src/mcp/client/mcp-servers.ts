import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../mcp-config.js";
import type { ProcessGroups } from "./process-group-transport.js";
import { ServerConnection, type McpServerState, type McpServerStatus } from "./server-connection.js";

export interface McpServersDeps {
  env: NodeJS.ProcessEnv;
  root: string;
  settings: { startupTimeoutMs: number; toolTimeoutMs: number; maxOutputTokens: number };
  /** Where the stdio servers' process groups are registered, so that Sylk ending ends them (`CommandProcesses`). */
  processes: ProcessGroups;
}

/** A change of a server's state that the user has not been told of yet. */
export interface McpServerNotice {
  server: string;
  state: Extract<McpServerState, "connected" | "failed">;
  tools: number;
  error?: string;
}

/** A prompt a server offers, as the slash command `/mcp__<server>__<prompt>`. */
export interface McpPromptCommand {
  command: string;
  server: string;
  prompt: string;
  description?: string;
  arguments: Array<{ name: string; required: boolean }>;
}

/**
 * The session's MCP servers: all started at once, none waited for by the
 * start (see the design notes), each failing on its own. Tools and prompts
 * are read from whichever are connected when asked.
 */
export class McpServers {
  private readonly connections: ServerConnection[];
  private readonly notices: McpServerNotice[] = [];
  /** What the user was last told of each server. */
  private readonly reported = new Map<string, McpServerNotice>();
  private readonly listeners = new Set<() => void>();
  private starting: Promise<void> | undefined;

  constructor(
    configs: Readonly<Record<string, McpServerConfig>>,
    private readonly deps: McpServersDeps,
  ) {
    const connectionDeps = {
      env: deps.env,
      root: deps.root,
      processes: deps.processes,
      startupTimeoutMs: deps.settings.startupTimeoutMs,
      toolTimeoutMs: deps.settings.toolTimeoutMs,
      onChange: (connection: ServerConnection) => this.changed(connection),
    };
    this.connections = Object.entries(configs).map(([name, config]) => new ServerConnection(name, config, connectionDeps));
  }

  get size(): number {
    return this.connections.length;
  }

  /** Starts every server; returns at once. */
  start(): void {
    this.starting ??= Promise.all(this.connections.map((connection) => connection.start())).then(() => undefined);
  }

  /** Resolves once every server has connected or failed (each within its start-up timeout). */
  async settled(): Promise<void> {
    this.start();
    await this.starting;
  }

  statuses(): McpServerStatus[] {
    return this.connections.map((connection) => connection.status);
  }

  get settings(): McpServersDeps["settings"] {
    return this.deps.settings;
  }

  /** The servers connected now: their tools and prompts are offered. */
  connected(): ServerConnection[] {
    return this.connections.filter((connection) => connection.status.state === "connected");
  }

  prompts(): McpPromptCommand[] {
    return this.connected().flatMap((connection) =>
      connection.status.prompts.map((prompt) => ({
        command: `mcp__${connection.name}__${prompt.name}`,
        server: connection.name,
        prompt: prompt.name,
        ...(prompt.description ? { description: prompt.description } : {}),
        arguments: (prompt.arguments ?? []).map((argument) => ({ name: argument.name, required: argument.required ?? false })),
      })),
    );
  }

  /**
   * A prompt's messages as the text of a user prompt. The words typed after
   * the command fill its arguments in order; the last argument takes the rest.
   */
  async expandPrompt(command: McpPromptCommand, typed: string): Promise<string> {
    const connection = this.connections.find((candidate) => candidate.name === command.server);
    if (!connection) throw new Error(`There is no MCP server "${command.server}".`);
    const values = argumentValues(command, typed);
    const missing = command.arguments.filter((argument) => argument.required && !values[argument.name]).map((argument) => argument.name);
    if (missing.length > 0)
      throw new Error(
        `/${command.command} needs ${missing.join(", ")}: /${command.command} ${command.arguments.map((argument) => `<${argument.name}>`).join(" ")}`,
      );
    return promptText(await connection.getPrompt(command.prompt, values));
  }

  /** Changes not yet reported, oldest first; each is reported once. */
  takeNotices(): McpServerNotice[] {
    return this.notices.splice(0, this.notices.length);
  }

  /** Called on any change of a server's state, tools or prompts (the TUI redraws `/mcp`). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }

  private changed(connection: ServerConnection): void {
    const { state, tools, error } = connection.status;
    const last = this.reported.get(connection.name);
    if ((state === "connected" || state === "failed") && (last?.state !== state || last.tools !== tools.length)) {
      const notice = { server: connection.name, state, tools: tools.length, ...(error && state === "failed" ? { error } : {}) };
      this.reported.set(connection.name, notice);
      this.notices.push(notice);
    }
    for (const listener of this.listeners) listener();
  }
}

function argumentValues(command: McpPromptCommand, typed: string): Record<string, string> {
  const words = typed.trim() ? typed.trim().split(/\s+/) : [];
  const values: Record<string, string> = {};
  command.arguments.forEach((argument, index) => {
    const last = index === command.arguments.length - 1;
    const value = last ? words.slice(index).join(" ") : words[index];
    if (value) values[argument.name] = value;
  });
  return values;
}

/** A prompt's messages, each text as written; other content is named. */
function promptText(result: GetPromptResult): string {
  return result.messages
    .map((message) => {
      const content = message.content;
      if (content.type === "text") return content.text;
      if (content.type === "resource" && "text" in content.resource && typeof content.resource.text === "string")
        return content.resource.text;
      return `[${content.type} content from the prompt]`;
    })
    .join("\n\n");
}
