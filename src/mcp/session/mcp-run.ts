import type { AgentEvent, AgentResult } from "../../agent/agent-events.js";
import type { McpServers } from "../client/mcp-servers.js";

/**
 * The run, with each MCP server that connected or failed since the last
 * report said as an `mcp_server` event: after each of the run's events, so
 * that a server failing while the model works is told as it happens (the
 * transcript, `sylk ask`'s stderr, a `stream-json` line). It waits for no
 * server: a server's tools join the registry whenever it is ready.
 */
export async function* withMcpNotices(
  servers: McpServers | undefined,
  run: AsyncGenerator<AgentEvent, AgentResult>,
): AsyncGenerator<AgentEvent, AgentResult> {
  if (!servers || servers.size === 0) return yield* run;
  for (;;) {
    const step = await run.next();
    if (step.done) return step.value;
    yield step.value;
    for (const notice of servers.takeNotices()) yield { type: "mcp_server", ...notice };
  }
}
