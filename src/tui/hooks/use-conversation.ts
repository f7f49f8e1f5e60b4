import { useCallback, useRef } from "react";
import type { InteractiveSession } from "../../app/interactive-session.js";
import { historyNotSavedNote, type PromptHistory } from "../../app/prompt-history.js";
import { bufferOfParts, expand } from "../input/pasted-text.js";
import { type AgentControls, type ResumeTarget, type SessionFactory, useAgent } from "./use-agent.js";
import type { PermissionModeState } from "./use-permission-mode.js";
import { type PromptDraft, type PromptEditor, usePromptEditor } from "./use-prompt-editor.js";

export interface Conversation {
  agent: AgentControls;
  editor: PromptEditor;
  /** `/model`: the conversation goes on (resumed) with another model. */
  switchModel(model: string): ReturnType<AgentControls["switchSession"]>;
}

/**
 * The agent and the prompt editor, wired to each other: prompts a cancel
 * returns go back into the editor, and a conversation opened later (/clear,
 * /resume, /model) takes the permission mode and model chosen since.
 */
export function useConversation(
  openAgentSession: InteractiveSession["openAgentSession"],
  modes: PermissionModeState,
  promptHistory: PromptHistory,
  resume: ResumeTarget | undefined,
  /** The prompt as typed before the session opened (the launch frame's). */
  initialDraft?: PromptDraft,
): Conversation {
  // Read when a session opens, so one opened for /model or /clear takes what was chosen in the same tick.
  const modelRef = useRef<string | undefined>(undefined);
  const openSession = useCallback<SessionFactory>(
    (approver, target) =>
      openAgentSession({
        approver,
        permissionMode: modes.current(),
        ...(modelRef.current ? { model: modelRef.current } : {}),
        ...(target ? { resume: target } : {}),
      }),
    [openAgentSession, modes.current],
  );
  // Queued prompts a cancel returns come back into the prompt, before whatever is being typed.
  const editorRef = useRef<PromptEditor | undefined>(undefined);
  const returnQueue = useCallback((prompts: readonly string[]) => {
    const editor = editorRef.current;
    if (editor) editor.update({ buffer: bufferOfParts([...prompts, expand(editor.state.buffer).text]) });
  }, []);
  const agent = useAgent(openSession, resume, returnQueue);
  const editor = usePromptEditor(
    promptHistory,
    (problem) => agent.print({ kind: "note", tone: "warning", text: historyNotSavedNote(problem) }),
    initialDraft,
  );
  editorRef.current = editor;
  const switchModel = (model: string) => {
    modelRef.current = model;
    return agent.switchSession(agent.session.started ? { id: agent.session.sessionId } : undefined);
  };
  return { agent, editor, switchModel };
}
