/**
 * Claude Code's names of the tools Sylk also has, so that hook matchers
 * written for Claude Code (`"matcher": "Bash"`, `"Edit|Write"`) match Sylk's
 * calls unchanged.
 */
const CLAUDE_CODE_NAMES: Readonly<Record<string, string>> = {
  Bash: "run_command",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  Write: "write_file",
  Read: "read_file",
  Grep: "grep",
  Glob: "glob",
  LS: "list_files",
  WebFetch: "web_fetch",
  TodoWrite: "todo_write",
  Task: "delegate",
};

/** The Claude Code names of a Sylk tool (none for a tool Claude Code does not have). */
export function claudeCodeNamesOf(sylkTool: string): string[] {
  return Object.entries(CLAUDE_CODE_NAMES).flatMap(([claude, sylk]) => (sylk === sylkTool ? [claude] : []));
}
