import { useCallback, useRef, useState } from "react";
import type { ApprovalAnswer, Approver } from "../../agent/tools/tool-registry.js";

export type ApprovalRequest = Parameters<Approver>[0];

export interface PendingApproval {
  /** Distinguishes two identical requests in a row, so each gets a fresh dialog. */
  id: number;
  request: ApprovalRequest;
  resolve: (answer: ApprovalAnswer) => void;
}

export interface Approvals {
  /** The tool registry's approver: each request waits for the user's answer. */
  approver: Approver;
  /** The question on screen; the others wait behind it. */
  approval: PendingApproval | undefined;
  answer(answer: ApprovalAnswer): void;
}

/**
 * The questions the tools put to the user, one on screen at a time:
 * sub-agents working at once may each ask one. A denial stops the turn
 * (`onDenied`), and the questions still waiting belong to the same turn, so
 * they are denied with it.
 */
export function useApprovals(onDenied: () => void): Approvals {
  const [approval, setApproval] = useState<PendingApproval | undefined>();
  const waiting = useRef<PendingApproval[]>([]);
  const count = useRef(0);
  const onDeniedRef = useRef(onDenied);
  onDeniedRef.current = onDenied;

  const approver = useCallback<Approver>(
    (request) =>
      new Promise<ApprovalAnswer>((resolve) => {
        const pending = { id: ++count.current, request, resolve };
        waiting.current.push(pending);
        if (waiting.current.length === 1) setApproval(pending);
      }),
    [],
  );

  const answer = useCallback((choice: ApprovalAnswer) => {
    const pending = waiting.current.shift();
    // "No, and tell Sylk what to do instead": the turn stops, and the prompt is the user's again.
    const stopping = pending !== undefined && choice === "deny";
    const rest = stopping ? waiting.current.splice(0) : [];
    setApproval(waiting.current[0]);
    pending?.resolve(choice);
    for (const question of rest) question.resolve("deny");
    if (stopping) onDeniedRef.current();
  }, []);

  return { approver, approval, answer };
}
