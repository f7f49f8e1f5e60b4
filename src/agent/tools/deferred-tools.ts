import * as z from "zod";
import type { ChatMessage } from "../../llm/model-types.js";
import { estimateTokens } from "../../tokens/estimate-tokens.js";
import type { ToolDefinition } from "./tool.js";

/** The tool that lists the deferred tools by name and loads the ones the model asks for. */
export const FIND_TOOLS = "find_tools";

/** The first line of every `find_tools` answer that loaded something: how a resumed session knows what was loaded. */
const LOADED_LINE = /^Loaded: (.+)$/m;

/**
 * Which of a session's tools are sent with every request and which wait
 * until the model asks for them. A deferred tool is the same definition as
 * ever (same permission checks, hooks, read-only admission); only its
 * description and schema stay out of the requests until `find_tools`
 * loads it (or the model calls it by the name `find_tools` lists, which
 * loads it too), for the rest of the session. Every MCP server's tool is
 * deferrable, as are the session's tools outside its core set; they are
 * held back only while that saves tokens: when what they cost together is
 * no more than `find_tools` itself, they are all sent.
 */
export class DeferredTools {
  private readonly loaded = new Set<string>();
  /** What each tool's spec costs, computed once per definition (listing and every call ask). */
  private readonly specTokens = new WeakMap<ToolDefinition, number>();

  /** `core`: the names always sent (a role's working set). */
  constructor(private readonly core: ReadonlySet<string>) {}

  /** Whether this tool may wait until loaded. */
  deferrable(tool: ToolDefinition): boolean {
    return tool.kind === "mcp" || !this.core.has(tool.name);
  }

  isLoaded(name: string): boolean {
    return this.loaded.has(name);
  }

  /** Sent from the next request on, for the rest of the session. */
  load(names: readonly string[]): void {
    for (const name of names) this.loaded.add(name);
  }

  /** A resumed session's tools loaded before, read from its recorded calls and `find_tools` answers. */
  restore(messages: readonly ChatMessage[]): void {
    this.load(loadedToolsIn(messages));
  }

  /**
   * The tools held back from this listing of `tools`: the deferrable ones not
   * loaded, unless sending them costs no more than the `find_tools` spec
   * (`findToolsTokens`) that would stand for them.
   */
  held(tools: readonly ToolDefinition[], findToolsTokens: (held: readonly ToolDefinition[]) => number): ToolDefinition[] {
    const held = tools.filter((tool) => this.deferrable(tool) && !this.loaded.has(tool.name));
    if (held.length === 0) return [];
    const heldTokens = held.reduce((sum, tool) => sum + this.tokensOf(tool), 0);
    return heldTokens > findToolsTokens(held) ? held : [];
  }

  private tokensOf(tool: ToolDefinition): number {
    let tokens = this.specTokens.get(tool);
    if (tokens === undefined) {
      tokens = estimateTokens(JSON.stringify(specOf(tool)));
      this.specTokens.set(tool, tokens);
    }
    return tokens;
  }
}

/** The first line of a `find_tools` answer that loaded `names`. */
export function loadedLine(names: readonly string[]): string {
  return `Loaded: ${names.join(", ")}`;
}

/**
 * The tools these messages loaded, in order: those every successful
 * `find_tools` call loaded, and every tool the model called (a call loads a
 * deferred tool it names; a core tool's name among them changes nothing).
 */
export function loadedToolsIn(messages: readonly ChatMessage[]): string[] {
  const findCalls = new Set<string>();
  const names: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === "tool_use" && block.name === FIND_TOOLS) findCalls.add(block.id);
      else if (block.type === "tool_use") names.push(block.name);
      if (block.type !== "tool_result" || block.isError || !findCalls.has(block.toolUseId)) continue;
      const line = LOADED_LINE.exec(block.content);
      if (line?.[1]) names.push(...line[1].split(", "));
    }
  }
  return names;
}

/** What the model sees of a tool. */
export function specOf(tool: ToolDefinition): { name: string; description: string; inputSchema: Record<string, unknown> } {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema ?? inputJsonSchema(tool.schema) };
}

/** A tool's definition as a tool result gives it to the model: its name, description and input schema. */
export function definitionText(tool: ToolDefinition): string {
  const spec = specOf(tool);
  return `## ${spec.name}\n${spec.description}\nInput schema: ${JSON.stringify(spec.inputSchema)}`;
}

/** A zod input schema as the JSON schema the model is sent. */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: "draft-7", io: "input" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}
