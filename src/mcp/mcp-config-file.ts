import { existsSync } from "node:fs";
import { applyEdits, type FormattingOptions, modify, type ParseError, parse as parseJsonc } from "jsonc-parser";
import { mcpServerSchema, mcpServersSchema, type McpServerConfig } from "../config/mcp-servers-schema.js";
import { readRegularFile } from "../files/regular-file.js";
import { replaceFile } from "../files/replace-file.js";

const FORMATTING: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: "\n" };

/** The servers one `.sylkrc` defines (none when the file is missing or has no `mcpServers`). */
export function serversInFile(path: string): Record<string, McpServerConfig> {
  const raw = readObject(path).mcpServers;
  if (raw === undefined) return {};
  const parsed = mcpServersSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`mcpServers in ${path} is malformed: ${parsed.error.issues[0]?.message ?? "invalid"}.`);
  return parsed.data;
}

/**
 * Adds a server to a `.sylkrc`, made when missing: the file's other
 * settings, comments and layout stay as they were (an edit, not a rewrite).
 * A name the file already has is refused, so nothing is replaced unseen.
 */
export function addServerToFile(path: string, name: string, config: McpServerConfig): void {
  const checked = mcpServersSchema.safeParse({ [name]: config });
  if (!checked.success) throw new Error(checked.error.issues.map((issue) => issue.message).join("; "));
  if (serversInFile(path)[name]) throw new Error(`${path} already has an MCP server "${name}": remove it first (sylk mcp remove ${name}).`);
  const text = existsSync(path) ? readRegularFile(path).toString("utf8") : "{}\n";
  replaceFile(path, applyEdits(text, modify(text, ["mcpServers", name], mcpServerSchema.parse(config), { formattingOptions: FORMATTING })));
}

/** Removes a server from a `.sylkrc`; false when the file does not define it. */
export function removeServerFromFile(path: string, name: string): boolean {
  if (!serversInFile(path)[name]) return false;
  const text = readRegularFile(path).toString("utf8");
  replaceFile(path, applyEdits(text, modify(text, ["mcpServers", name], undefined, { formattingOptions: FORMATTING })));
  return true;
}

/** The file's top level; a malformed file is refused rather than edited (an edit could not say where it went). */
function readObject(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(readRegularFile(path).toString("utf8"), errors, { allowTrailingComma: true });
  if (errors.length > 0) throw new Error(`${path} is not valid JSON with comments: fix it first (sylk config says where).`);
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${path}: the top level must be an object.`);
  return value as Record<string, unknown>;
}
