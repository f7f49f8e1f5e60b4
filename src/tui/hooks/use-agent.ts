import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import type { AgentEvent } from "../../agent/agent-events.js";
import type { ApprovalAnswer, Approver } from "../../agent/tools/tool-registry.js";
import { PIPELINE_TASK } from "../commands/command-list.js";
import { type ApprovalRequest, useApprovals } from "./use-approvals.js";
import type { AgentSession } from "../../app/session/open-agent-session.js";
import { agentReducer, INITIAL_AGENT_STATE, type AgentViewState } from "../agent-state.js";
import type { TranscriptEntry } from "../transcript.js";
import { errorMessage } from "../../errors.js";

export type { ApprovalRequest };
export type ResumeTarget = { latest: true } | { id: string };
/** Opens a conversation whose writes and commands are put to the user through `approver`. */
export type SessionFactory = (approver: Approver, resume?: ResumeTarget) => AgentSession;

export interface AgentControls {
  state: AgentViewState;
  /** A write or command waiting for the user's answer. */
  approval: ApprovalRequest | undefined;
  /** Distinguishes two identical requests in a row, so each gets a fresh dialog. */
  approvalId: number;
  /** Prompts sent while a turn was running; they run in order after it. */
  queued: readonly string[];
  session: AgentSession;
  submit(prompt: string): void;
  /** Aborts the running turn (a pending approval is denied); false when nothing was running. */
  cancel(): boolean;
  answer(answer: ApprovalAnswer): void;
  print(...entries: TranscriptEntry[]): void;
  /** Empties the transcript (a new screen) and shows `entries`. */
  clear(...entries: TranscriptEntry[]): void;
  /** The transcript view: the history printed again with every tool call's whole output, or compact again. */
  toggleExpanded(): void;
  /** The history printed again as it is, once the screen was cleared. */
  reprint(): void;
  /** Switches to a new conversation, or resumes one; throws (BadInputError) for an unknown session. */
  switchSession(resume?: ResumeTarget): AgentSession;
  /** Cancels whatever runs and waits until the run has recorded its end. */
  stop(): Promise<void>;
}

/**
 * The one consumer of the agent's event stream: runs prompts one at a time,
 * folds every event into the transcript state, and bridges the tool
 * registry's approver to the approval dialog.
 */
export function useAgent(
  openSession: SessionFactory,
  initialResume?: ResumeTarget,
  /** Prompts still queued when a turn is cancelled: they go back to the user (into the prompt), not away. */
  onQueueReturned: (prompts: readonly string[]) => void = () => undefined,
): AgentControls {
  const [state, dispatch] = useReducer(agentReducer, INITIAL_AGENT_STATE);
  const [queued, setQueued] = useState<readonly string[]>([]);
  const runRef = useRef<{ controller: AbortController; done: Promise<void> } | undefined>(undefined);
  const queueRef = useRef<string[]>([]);
  const stoppingRef = useRef(false);

  const returnQueueRef = useRef(onQueueReturned);
  returnQueueRef.current = onQueueReturned;
  /** Stops the running turn and hands what was queued back; false when nothing was running. */
  const stopRun = useCallback(() => {
    const current = runRef.current;
    if (!current) return false;
    const returned = queueRef.current;
    queueRef.current = [];
    setQueued([]);
    current.controller.abort();
    if (returned.length > 0) returnQueueRef.current(returned);
    return true;
  }, []);
  const { approver, approval, answer } = useApprovals(stopRun);

  const [initialSession] = useState(() => openSession(approver, initialResume));
  const sessionRef = useRef<AgentSession>(initialSession);
  // A resumed conversation shows its task list from the start.
  useEffect(() => {
    const tasks = initialSession.tasks();
    if (tasks.length > 0) dispatch({ type: "session", sessionId: initialSession.sessionId, tasks });
  }, [initialSession]);

  // Refs rather than state: a prompt queued in the same tick as the previous one finishing must not be lost.
  const startRef = useRef<(prompt: string) => void>(() => undefined);
  startRef.current = (prompt: string) => {
    const controller = new AbortController();
    dispatch({ type: "started", prompt });
    const run = runOf(sessionRef.current, prompt, controller.signal);
    const done = (async () => {
      try {
        for await (const event of run) dispatch({ type: "event", event });
      } catch (error) {
        dispatch({ type: "crashed", message: `The turn failed: ${errorMessage(error)}` });
      }
    })().finally(() => {
      runRef.current = undefined;
      const next = queueRef.current.shift();
      setQueued([...queueRef.current]);
      if (next !== undefined && !stoppingRef.current) startRef.current(next);
    });
    runRef.current = { controller, done };
  };

  const submit = useCallback((prompt: string) => {
    if (runRef.current) {
      queueRef.current.push(prompt);
      setQueued([...queueRef.current]);
      return;
    }
    startRef.current(prompt);
  }, []);

  const cancel = useCallback(() => {
    if (!stopRun()) return false;
    // The registry is waiting on the dialog, not on the signal: answer it so the run can end.
    answer("deny");
    return true;
  }, [answer, stopRun]);

  const print = useCallback((...entries: TranscriptEntry[]) => dispatch({ type: "append", entries }), []);
  const clear = useCallback((...entries: TranscriptEntry[]) => dispatch({ type: "clear", entries }), []);
  const toggleExpanded = useCallback(() => dispatch({ type: "toggle-expanded" }), []);
  const reprint = useCallback(() => dispatch({ type: "reprint" }), []);

  const switchSession = useCallback(
    (resume?: ResumeTarget) => {
      if (runRef.current) throw new Error("A turn is running; press Esc to cancel it first.");
      const session = openSession(approver, resume);
      endInBackground(sessionRef.current, resume ? "resume" : "clear");
      sessionRef.current = session;
      dispatch({ type: "session", sessionId: session.sessionId, tasks: session.tasks() });
      return session;
    },
    [approver, openSession],
  );

  const stop = useCallback(async () => {
    stoppingRef.current = true;
    const current = runRef.current;
    cancel();
    await current?.done;
    // The observation under way finishes before the session closes (a graceful shutdown: notes half written are not lost).
    await sessionRef.current.settleMemory();
    await sessionRef.current.end("exit");
    sessionRef.current.close();
  }, [cancel]);

  return {
    state,
    approval: approval?.request,
    approvalId: approval?.id ?? 0,
    queued,
    session: sessionRef.current,
    submit,
    cancel,
    answer,
    print,
    clear,
    toggleExpanded,
    reprint,
    switchSession,
    stop,
  };
}

/**
 * What a prompt runs: `!command` is the user's own command, shown and put in
 * the conversation; `/pipeline <task>` comes here through submit, so it
 * queues behind a running turn like any prompt; anything else goes to the model.
 */
function runOf(session: AgentSession, prompt: string, signal: AbortSignal): AsyncIterable<AgentEvent> {
  const command = prompt.startsWith("!") ? prompt.slice(1).trim() : "";
  if (command) return session.runCommand(command, signal);
  if (PIPELINE_TASK.test(prompt)) return session.runPipeline(prompt.replace(PIPELINE_TASK, "").trim(), signal);
  return session.run(prompt, signal);
}

/**
 * The conversation left behind by /clear or /resume ends in the background:
 * its SessionEnd hooks run and its observation under way finishes, and what
 * its agent learned goes into the profiles.
 */
function endInBackground(left: AgentSession, reason: "resume" | "clear"): void {
  void left
    .end(reason)
    .then(() => left.settleMemory())
    .finally(() => left.close());
}
