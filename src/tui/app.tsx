import { Box, Text, useStdout } from "ink";
import { useCallback, useEffect, useMemo, useRef } from "react";
import type { PermissionMode } from "../agent/permissions/permission-policy.js";
import { nextPermissionMode, PERMISSION_MODE_HINTS } from "./format/permission-modes.js";
import { sessionStatusInfo } from "./format/session-status.js";
import type { InteractiveSession } from "../app/interactive-session.js";
import type { PromptHistory } from "../app/prompt-history.js";
import type { SlashCommandContext } from "./commands/slash-commands.js";
import { submitLine } from "./commands/submit-line.js";
import { ApprovalDialog } from "./components/approval-dialog.js";
import { ConsentPrompt } from "./components/consent-prompt.js";
import { ProgressBar } from "./components/progress-bar.js";
import { PromptInput } from "./components/prompt-input.js";
import { QueuedPrompts } from "./components/queued-prompts.js";
import { StatusLine } from "./components/status-line.js";
import { TaskPanel } from "./components/task-panel.js";
import { Transcript } from "./components/transcript.js";
import type { ResumeTarget } from "./hooks/use-agent.js";
import { useCommandMenu } from "./hooks/use-command-menu.js";
import { useConversation } from "./hooks/use-conversation.js";
import type { PromptDraft } from "./hooks/use-prompt-editor.js";
import { useExitRequest } from "./hooks/use-exit-request.js";
import { useFlash } from "./hooks/use-flash.js";
import { useMcpNotices } from "./hooks/use-mcp-notices.js";
import { usePermissionMode } from "./hooks/use-permission-mode.js";
import { useInterruptKeys } from "./hooks/use-interrupt-keys.js";
import { useRedrawOnResize } from "./hooks/use-redraw-on-resize.js";
import { useScreenIndexing } from "./hooks/use-screen-indexing.js";
import { useStartNotes } from "./hooks/use-start-notes.js";
import { useTerminalWidth } from "./hooks/use-terminal-width.js";
import type { BackgroundIndexing } from "../app/background-indexing.js";
import type { ScreenReadModel } from "../app/screen-read-model.js";
import { preloadHighlighter } from "./markdown/highlight.js";
import type { MentionSource } from "./input/mention-completion.js";
import { ScreenRoot } from "./screen-root.js";
import { useTheme } from "./theme.js";
import type { TranscriptEntry } from "./transcript.js";

export interface AppProps {
  /** What the screen reads of the project. */
  project: ScreenReadModel;
  /** Opens a conversation in the project: at start, and for /clear, /resume and /model. */
  openAgentSession: InteractiveSession["openAgentSession"];
  indexing: BackgroundIndexing;
  /** The project's prompt history, kept across restarts. */
  promptHistory: PromptHistory;
  /** Suggestions for `@` mentions in the prompt. */
  mentions?: MentionSource;
  env: NodeJS.ProcessEnv;
  permissionMode?: PermissionMode;
  resume?: ResumeTarget;
  /** A first prompt, sent once nothing is asked any more (`sylk "prompt"`). */
  initialPrompt?: string;
  /** The prompt as typed in the launch frame, before the session opened: it goes on from there. */
  initialDraft?: PromptDraft;
  /** Lines sent in the launch frame, in order: each is sent as if typed now, after `initialPrompt`. */
  typedBeforeOpen?: readonly string[];
  /** Said at the top of the transcript, under the banner: what opening the project found wrong. */
  startNotices?: readonly string[];
  /** Leaves as /exit does when aborted. */
  exitSignal?: AbortSignal;
  /** Called once, after the running turn (if any) has stopped, just before the app unmounts. */
  /** The session the conversation was recorded in; undefined when nothing was. */
  onExit: (info: { sessionId: string | undefined }) => void;
}

/** Clears the visible screen and the scrollback, then homes the cursor. */
const CLEAR_TERMINAL = "\u001b[2J\u001b[3J\u001b[H";

/** The session's screen on its own (tests, and a process without a launch frame). */
export function App(props: AppProps) {
  return (
    <ScreenRoot env={props.env}>
      <SessionScreen {...props} />
    </ScreenRoot>
  );
}

/**
 * The composition: transcript, dialogs, indexing line, prompt and status
 * line, wired to the engine. Drawn in a `ScreenRoot`, in place of the launch
 * frame once the session is open.
 */
export function SessionScreen({
  project,
  openAgentSession,
  indexing,
  promptHistory,
  mentions,
  permissionMode,
  resume,
  initialPrompt,
  initialDraft,
  typedBeforeOpen,
  startNotices,
  exitSignal,
  onExit,
}: AppProps) {
  const theme = useTheme();
  const { write } = useStdout();
  const columns = useTerminalWidth();
  const [hint, flash, dismissHint] = useFlash();

  const initialMode = permissionMode ?? project.settings.permissionMode;
  const modes = usePermissionMode(initialMode);
  const { agent, editor, switchModel } = useConversation(openAgentSession, modes, promptHistory, resume, initialDraft);
  const banner = useBanner(project.root, agent.session.provider?.model);

  useMcpNotices(agent.session.mcp, agent.state.running, agent.print);
  const { index, consent } = useScreenIndexing(indexing, project.consent, agent);
  useStartNotes(agent, project, banner, startNotices);

  // Code highlighting loads once the screen is up, off the launch path.
  useEffect(() => void preloadHighlighter().catch(() => undefined), []);

  const requestExit = useExitRequest(agent, onExit, exitSignal);

  useInterruptKeys({
    cancelTurn: agent.cancel,
    clearPrompt: editor.clear,
    cancelSearch: editor.cancelSearch,
    exit: requestExit,
    hint: flash,
    dismissHint,
    dialogOpen: agent.approval !== undefined,
    blocking: consent.asking,
    cyclePermissionMode: () => {
      const next = nextPermissionMode(modes.current(), permissionMode === "bypass");
      modes.change(next, agent.session);
      flash(`${next} mode: ${PERMISSION_MODE_HINTS[next]} (Shift+Tab to change)`);
    },
    toggleTranscript: () => {
      // The printed history cannot change in place: the screen is cleared and it is printed again.
      write(CLEAR_TERMINAL);
      agent.toggleExpanded();
    },
  });
  useRedrawOnResize(columns, () => {
    write(CLEAR_TERMINAL);
    agent.reprint();
  });

  const menu = useCommandMenu(project, agent.session.mcp);
  const submit = (text: string) => submitLine(text, slashContext());
  useInitialPrompts({ initialPrompt, typedBeforeOpen }, consent.asking, agent.submit, submit);
  const slashContext = (): SlashCommandContext => ({
    project,
    agent,
    indexing,
    banner,
    clearScreen: () => write(CLEAR_TERMINAL),
    switchModel,
    permissionMode: { initial: initialMode, set: (next) => modes.change(next, agent.session) },
    exit: requestExit,
    menu,
  });

  // Counted when a turn ends or the transcript grows (a /memory answer), not on every frame.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the turn's state and the transcript's length are when to count again, not inputs.
  const pendingQuestions = useMemo(() => project.pendingQuestions(), [project, agent.state.running, agent.state.history.length]);
  const modal = consent.asking || agent.approval !== undefined;
  return (
    <Box flexDirection="column" width={columns}>
      <Transcript state={agent.state} awaitingApproval={agent.approval !== undefined} />
      {consent.asking && (
        <ConsentPrompt
          root={project.root}
          database={project.database}
          maxFileSize={project.settings.maxFileSize}
          onAnswer={consent.answer}
        />
      )}
      {agent.approval && <ApprovalDialog key={agent.approvalId} request={agent.approval} onAnswer={agent.answer} />}
      <ProgressBar view={index} />
      <TaskPanel tasks={agent.state.tasks} running={agent.state.running} />
      {!modal && (
        <PromptInput
          editor={editor}
          onSubmit={submit}
          commands={menu}
          onExit={requestExit}
          {...(mentions ? { mentions } : {})}
          placeholder={agent.state.running ? "Type to queue a message · Esc to interrupt" : "Ask anything · /help for commands"}
        />
      )}
      <QueuedPrompts prompts={agent.queued} />
      <StatusLine
        columns={columns}
        info={sessionStatusInfo(agent.state, agent.session, {
          index,
          mode: modes.mode,
          questions: pendingQuestions,
          configuredWindowTokens: project.settings.windowTokens,
        })}
      />
      {hint && (
        <Box paddingX={1}>
          <Text color={theme.warning}>{hint}</Text>
        </Box>
      )}
    </Box>
  );
}

/** The banner atop the screen (at start and after /clear): the project and the model. */
function useBanner(root: string, model: string | undefined): () => TranscriptEntry {
  return useCallback((): TranscriptEntry => ({ kind: "banner", root, model: model ?? "no model: answers from the index" }), [root, model]);
}

/**
 * `sylk "prompt"`, then the lines sent in the launch frame: sent once, when
 * the index question (if any) is answered. The prompt of the command line
 * goes to the agent as it is; a typed line is taken as any line the user
 * sends (a slash command, a `#` note), and while a turn runs it queues.
 */
function useInitialPrompts(
  prompts: { initialPrompt: string | undefined; typedBeforeOpen: readonly string[] | undefined },
  blocked: boolean,
  sendToAgent: (prompt: string) => void,
  sendLine: (line: string) => void,
): void {
  const sent = useRef(false);
  const latest = useRef({ sendToAgent, sendLine });
  latest.current = { sendToAgent, sendLine };
  const { initialPrompt, typedBeforeOpen } = prompts;
  useEffect(() => {
    if (sent.current || blocked) return;
    sent.current = true;
    if (initialPrompt) latest.current.sendToAgent(initialPrompt);
    for (const line of typedBeforeOpen ?? []) latest.current.sendLine(line);
  }, [initialPrompt, typedBeforeOpen, blocked]);
}
