import { useApp } from "ink";
import { useCallback, useEffect, useRef } from "react";
import type { AgentControls } from "./use-agent.js";

/**
 * Leaving the screen, once: the running turn (if any) is stopped and has
 * recorded its end before `onExit` learns the session and the app unmounts.
 * An aborted `exitSignal` leaves as /exit does.
 */
export function useExitRequest(
  agent: AgentControls,
  onExit: (info: { sessionId: string | undefined }) => void,
  exitSignal: AbortSignal | undefined,
): () => void {
  const { exit } = useApp();
  const exiting = useRef(false);
  // Stable, so listeners registered once (the exit signal) always reach the current agent.
  const agentRef = useRef(agent);
  agentRef.current = agent;
  const onExitRef = useRef(onExit);
  onExitRef.current = onExit;
  const requestExit = useCallback(() => {
    if (exiting.current) return;
    exiting.current = true;
    void agentRef.current.stop().then(() => {
      const { session } = agentRef.current;
      onExitRef.current({ sessionId: session.started ? session.sessionId : undefined });
      exit();
    });
  }, [exit]);

  useEffect(() => {
    if (!exitSignal) return;
    if (exitSignal.aborted) return requestExit();
    exitSignal.addEventListener("abort", requestExit);
    return () => exitSignal.removeEventListener("abort", requestExit);
  }, [exitSignal, requestExit]);
  return requestExit;
}
