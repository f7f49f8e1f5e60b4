import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolOutput } from "../../agent/tools/tool.js";
import { estimateTokens } from "../../tokens/estimate-tokens.js";

/** Where a result's large text, images and resources are kept for the session (see `mcpOutputStore`). */
export interface McpOutputSink {
  /** Stores one piece as a content entry of the running session; answers its id. */
  store(piece: { content: string; metadata: Record<string, unknown> }): Promise<string>;
  /** A context reference to stored entries, rendered as its `[CTX-REF:…]` marker. */
  marker(entryIds: readonly string[]): string;
}

export interface McpOutputOptions {
  /** `mcp__<server>__<tool>`, for the stored entries' metadata. */
  toolName: string;
  server: string;
  /** Past this many tokens the text is stored whole and the model gets its beginning and a marker. */
  maxTokens: number;
  sink: McpOutputSink;
}

type Block = CallToolResult["content"][number];

/**
 * An MCP result as the model reads it: its text blocks joined (structured
 * content when no text says it), each image, audio clip or binary resource
 * stored as an entry and named by a line, and text past the limit stored
 * whole behind a marker that `retrieve_context` opens byte for byte.
 */
export async function toolOutputOf(result: CallToolResult, options: McpOutputOptions): Promise<ToolOutput> {
  const parts: string[] = [];
  for (const block of result.content ?? []) parts.push(await partOf(block, options));
  if (!result.content?.some((block) => block.type === "text") && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  const text = parts.join("\n") || "(the tool returned nothing)";
  const output = await withinLimit(text, options);
  const display = firstLine(text);
  return { output, display, ...(result.isError ? { isError: true } : {}) };
}

async function partOf(block: Block, options: McpOutputOptions): Promise<string> {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return storedLine(block.type, block.mimeType, block.data, undefined, options);
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string")
        return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}]\n${resource.text}`;
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      return storedLine("resource", resource.mimeType ?? "application/octet-stream", blob, resource.uri, options);
    }
    case "resource_link":
      return `[resource link: ${block.name} ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ""}${block.description ? ` — ${block.description}` : ""}]`;
    default:
      return `[content of an unknown type: ${JSON.stringify(block).slice(0, 200)}]`;
  }
}

/** Binary content is stored base64 as the server sent it; the model reads what it is and where it is kept. */
async function storedLine(
  kind: string,
  mimeType: string,
  base64: string,
  uri: string | undefined,
  options: McpOutputOptions,
): Promise<string> {
  const id = await options.sink.store({
    content: base64,
    metadata: {
      tool: options.toolName,
      mcpServer: options.server,
      mcpContent: kind,
      mimeType,
      encoding: "base64",
      ...(uri ? { uri } : {}),
    },
  });
  const bytes = Math.floor((base64.replace(/=+$/, "").length * 3) / 4);
  return `[${kind} ${mimeType}${uri ? ` ${uri}` : ""}, ${formatBytes(bytes)}, stored as content entry ${id} (base64)]`;
}

async function withinLimit(text: string, options: McpOutputOptions): Promise<string> {
  const tokens = estimateTokens(text);
  if (tokens <= options.maxTokens) return text;
  const id = await options.sink.store({
    content: text,
    metadata: { tool: options.toolName, mcpServer: options.server, mcpContent: "full output" },
  });
  const marker = options.sink.marker([id]);
  const head = beginning(text, Math.floor(options.maxTokens / 2));
  return `${head}\n\n[The output is about ${tokens.toLocaleString("en-US")} tokens; above is its beginning. All of it is stored, byte for byte:]\n${marker}`;
}

/** The longest start of the text within about this many tokens, cut at a line break when one is near. */
function beginning(text: string, tokens: number): string {
  let end = Math.min(text.length, tokens * 4);
  while (end > 0 && estimateTokens(text.slice(0, end)) > tokens) end = Math.floor(end * 0.9);
  const lineBreak = text.lastIndexOf("\n", end);
  return text.slice(0, lineBreak > end * 0.8 ? lineBreak : end);
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
