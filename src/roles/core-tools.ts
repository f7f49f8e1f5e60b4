/**
 * The tools sent with every request, whatever the role: what a coding agent
 * uses turn after turn (read, find, change, run, get back what left the
 * window, keep its task list), and the tool each role delivers its answer
 * through. `list_files` and `search_history` are not among them: `glob`
 * and `retrieve_context` (which searches the history by query too) cover
 * what an agent needs of them on most turns, for fewer tokens. Every other tool a role has (the team and knowledge tools,
 * web_fetch, the rarer history and role tools, every MCP server's tool) is
 * deferred: named by `find_tools`, sent once the model loads it.
 */
export const CORE_TOOLS: ReadonlySet<string> = new Set([
  "read_file",
  "glob",
  "grep",
  "search_codebase",
  "edit_file",
  "write_file",
  "run_command",
  "retrieve_context",
  "todo_write",
  "share_context",
  "submit_design",
  "submit_plan",
  "report_issues",
  "report_test_results",
  "route_to_agent",
]);
