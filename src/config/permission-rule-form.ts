/**
 * The form a permission rule has, in `.sylkrc` and in `/permissions`:
 * `tool` or `tool(pattern)` for Sylk's tools (`run_command(npm test*)`,
 * `edit_file(src/**)`), and for an MCP server's tools, as Claude Code writes
 * them, `mcp__<server>__<tool>` for one, `mcp__<server>` or
 * `mcp__<server>__*` for all of a server's.
 */
export const PERMISSION_RULE_FORM = /^([a-z_]+|mcp__[A-Za-z0-9_-]+(?:__\*)?)(?:\((.*)\))?$/;

/** What the form is, for the messages that refuse a rule. */
export const PERMISSION_RULE_HINT = "tool, tool(pattern), mcp__server or mcp__server__tool";
