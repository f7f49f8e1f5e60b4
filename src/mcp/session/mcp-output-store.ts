import type { UniversalContentStore } from "../../content-store/universal-content-store.js";
import { generateReference, newReferenceId, renderReference } from "../../context/context-reference.js";
import type { SessionRecorder } from "../../agent/session-recorder.js";
import type { McpOutputSink } from "./mcp-output.js";

/**
 * Keeps an MCP result's large text and binary pieces in the running
 * session's content store (masked there, as every entry is), and makes the
 * context reference a marker points to: the same reference eviction makes,
 * so `retrieve_context(ref_id)` opens it.
 */
export function mcpOutputStore(deps: {
  contentStore: Pick<UniversalContentStore, "getSummariesByIds" | "storeReference" | "getReference">;
  recorder: () => SessionRecorder | undefined;
}): McpOutputSink {
  const active = () => {
    const recorder = deps.recorder();
    if (!recorder) throw new Error("no session is recording");
    return recorder;
  };
  return {
    store: (piece) => active().recordDerived({ contentType: "tool_result", content: piece.content, metadata: piece.metadata }),
    marker: (entryIds) => {
      const recorder = active();
      const reference = generateReference({
        id: newReferenceId(deps.contentStore),
        sessionId: recorder.session.id,
        agentId: recorder.agent.agentId,
        entries: deps.contentStore.getSummariesByIds(entryIds),
      });
      deps.contentStore.storeReference(reference);
      return renderReference(reference);
    },
  };
}
