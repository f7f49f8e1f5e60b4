/**
 * The tools a Sylk session offers, by name (`share_context` only in a
 * knowledge agent's session, while it answers consultations). A role lists the tools it would
 * use; it gets those of them that are here. A test opens a real
 * session and checks this list against the tools it built, so the two
 * cannot drift apart.
 */
export const SESSION_TOOL_NAMES = [
  "read_file",
  "list_files",
  "glob",
  "grep",
  "search_codebase",
  "edit_file",
  "write_file",
  "run_command",
  "web_fetch",
  "retrieve_context",
  "search_history",
  "get_turn_range",
  "todo_write",
  "get_symbol_context",
  "get_recent_changes",
  "search_decisions",
  "get_chronicle_entries",
  "get_cross_session_patterns",
  "search_test_history",
  "get_coverage_gaps",
  "get_agent_capabilities",
  "delegate",
  "consult_librarian",
  "consult_archivalist",
  "consult_academic",
  "consult_architect",
  "get_routing_history",
  "route_to_agent",
] as const;
