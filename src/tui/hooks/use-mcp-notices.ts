import { useEffect, useRef } from "react";
import { mcpFailureNote } from "../../agent/agent-events.js";
import type { McpServers } from "../../mcp/client/mcp-servers.js";
import type { TranscriptEntry } from "../transcript.js";

/**
 * A server that fails while no turn runs is said at once, in the
 * transcript; while a turn runs, its events say it (`withMcpNotices`), so
 * each failure is told once either way.
 */
export function useMcpNotices(mcp: McpServers | undefined, running: boolean, print: (...entries: TranscriptEntry[]) => void): void {
  const runningNow = useRef(running);
  runningNow.current = running;
  useEffect(() => {
    if (!mcp) return;
    const stop = mcp.onChange(() => {
      if (runningNow.current) return;
      for (const notice of mcp.takeNotices()) {
        if (notice.state === "failed") print({ kind: "note", tone: "warning", text: mcpFailureNote({ type: "mcp_server", ...notice }) });
      }
    });
    return () => {
      stop();
    };
  }, [mcp, print]);
}
