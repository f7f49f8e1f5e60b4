import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The reference MCP server, run from the dev dependency (offline). */
export const EVERYTHING_SERVER = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

/** `mcpServers.everything` as a user writes it: the reference server over stdio. */
export function everythingServer(extra: { env?: Record<string, string> } = {}): {
  command: string;
  args: string[];
  env?: Record<string, string>;
} {
  return { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"], ...extra };
}

/** Writes the user's `~/.sylkrc` (HOME is the test's). */
export function writeUserConfig(env: NodeJS.ProcessEnv, config: Record<string, unknown>): void {
  writeFileSync(join(env.HOME as string, ".sylkrc"), JSON.stringify(config, null, 2));
}

interface ToolResultBlock {
  tool_use_id: string;
  content: string | Array<{ type: string; text?: string }>;
  is_error?: boolean;
}

/** The tool_result blocks of a recorded Messages API request's last message. */
export function toolResultsIn(body: { messages: Array<{ content: unknown }> } | undefined): ToolResultBlock[] {
  const last = body?.messages.at(-1)?.content;
  if (!Array.isArray(last)) return [];
  return last.filter((block): block is ToolResultBlock => (block as { type?: string }).type === "tool_result");
}

/** A tool result's text, whether the API got it as a string or as blocks. */
export function resultText(block: ToolResultBlock | undefined): string {
  if (!block) return "";
  return typeof block.content === "string" ? block.content : block.content.map((part) => part.text ?? "").join("");
}
