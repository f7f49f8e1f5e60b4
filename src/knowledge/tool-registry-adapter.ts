import type { ToolDescriptor, ToolRegistryProvider } from "./context-providers.js";

/**
 * `ToolRegistryAdapter`: a fixed list of tools as a
 * `ToolRegistryProvider`. The list and each descriptor are copied at
 * construction and on the way out, so neither the caller's later changes nor
 * a reader's reach the adapter.
 */
export class ToolRegistryAdapter implements ToolRegistryProvider {
  private readonly tools: readonly ToolDescriptor[];

  constructor(tools: readonly ToolDescriptor[]) {
    this.tools = tools.map(copyOf);
  }

  listTools(): ToolDescriptor[] {
    return this.tools.map(copyOf);
  }

  /** Tools whose name or description contains `query`, ignoring case, in registration order; an empty query matches every tool. */
  searchTools(query: string, limit: number): ToolDescriptor[] {
    if (limit <= 0) return [];
    const needle = query.toLowerCase();
    const matches: ToolDescriptor[] = [];
    for (const tool of this.tools) {
      if (tool.name.toLowerCase().includes(needle) || tool.description.toLowerCase().includes(needle)) {
        matches.push(copyOf(tool));
        if (matches.length === limit) break;
      }
    }
    return matches;
  }
}

function copyOf(tool: ToolDescriptor): ToolDescriptor {
  return { name: tool.name, description: tool.description };
}
