import * as z from "zod/mini";

/* `mcpServers` in `.sylkrc`, in the shape Claude Code, Cursor and others read, so that users' files carry over. */

/**
 * A server's name: it becomes part of tool names (`mcp__<server>__<tool>`)
 * and rules, so it is limited to what tool names may hold, and has no `__`,
 * so that a tool name splits into server and tool one way only.
 */
export const MCP_SERVER_NAME = /^(?!.*__)[A-Za-z0-9_-]{1,40}$/;

const stringRecord = z.record(z.string(), z.string());

/** `{ "command", "args", "env", "cwd" }`: a program Sylk starts and talks to over its stdin and stdout. */
const stdioServerSchema = z.strictObject({
  type: z.optional(z.literal("stdio")),
  command: z.string().check(z.minLength(1)),
  args: z.optional(z.array(z.string())),
  env: z.optional(stringRecord),
  cwd: z.optional(z.string().check(z.minLength(1))),
});

/** `{ "url", "headers" }`: streamable HTTP, with the older HTTP+SSE transport as the fallback (`sse` goes to it directly). */
const httpServerSchema = z.strictObject({
  type: z.optional(z.enum(["http", "sse"])),
  url: z.string().check(z.regex(/^(https?:\/\/|\$\{)/, "must be an http:// or https:// URL")),
  headers: z.optional(stringRecord),
});

export const mcpServerSchema = z.union([stdioServerSchema, httpServerSchema]);

export const mcpServersSchema = z.record(
  z.string().check(z.regex(MCP_SERVER_NAME, "a server name is letters, digits, - and _ (no __), at most 40")),
  mcpServerSchema,
);

export type McpServerConfig = z.infer<typeof mcpServerSchema>;
export type StdioServerConfig = z.infer<typeof stdioServerSchema>;
export type HttpServerConfig = z.infer<typeof httpServerSchema>;
