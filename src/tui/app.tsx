import { Box, Text, useApp, useStdout } from "ink";
import { useCallback, useEffect, useMemo, useRef } from "react";
import type { PermissionMode } from "../agent/permissions/permission-policy.js";
import { DEFAULT_AGENT_TYPE } from "../roles/agent-types.js";
import { nextPermissionMode, PERMISSION_MODE_HINTS } from "./format/permission-modes.js";
import { costSoFar, windowTokensOf } from "./format/session-figures.js";
import { describeSandbox, keptReadable, sandboxLabel } from "../agent/sandbox/command-sandbox.js";
import type { InteractiveSession } from "../app/interactive-session.js";
import type { PromptHistory } from "../app/prompt-history.js";
import { isMemoryNote, isSlashCommand } from "./commands/command-list.js";
import { mcpSlashCommands } from "../mcp/session/mcp-prompt-commands.js";
import { runSlashCommand, type SlashCommandContext } from "./commands/slash-commands.js";
import { ApprovalDialog } from "./components/approval-dialog.js";
import { ConsentPrompt } from "./components/consent-prompt.js";
import { ProgressBar } from "./components/progress-bar.js";
import { PromptInput } from "./components/prompt-input.js";
import { StatusLine } from "./components/status-line.js";
import { TaskPanel } from "./components/task-panel.js";
import { Transcript } from "./components/transcript.js";
import { useAgent, type ResumeTarget, type SessionFactory } from "./hooks/use-agent.js";
import { useFlash } from "./hooks/use-flash.js";
import { useIndexConsent } from "./hooks/use-index-consent.js";
import { useIndexing } from "./hooks/use-indexing.js";
import { useMcpNotices } from "./hooks/use-mcp-notices.js";
import { usePermissionMode } from "./hooks/use-permission-mode.js";
import { useInterruptKeys } from "./hooks/use-interrupt-keys.js";
import { KeysProvider } from "./hooks/use-keys.js";
import { usePromptEditor, type PromptEditor } from "./hooks/use-prompt-editor.js";
import { useRedrawOnResize } from "./hooks/use-redraw-on-resize.js";
import { useTerminalWidth } from "./hooks/use-terminal-width.js";
import type { BackgroundIndexing, IndexNotice } from "../app/background-indexing.js";
import type { ScreenReadModel } from "../app/screen-read-model.js";
import { preloadHighlighter } from "./markdown/highlight.js";
import type { MentionSource } from "./input/mention-completion.js";
import { bufferOfParts, expand } from "./input/pasted-text.js";
import { RECAP_ITEMS, recapEntries } from "./session-recap.js";
import { createTheme, ThemeContext, useTheme } from "./theme.js";
import { visible } from "../format/visible-text.js";
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
  /** Leaves as /exit does when aborted. */
  exitSignal?: AbortSignal;
  /** Called once, after the running turn (if any) has stopped, just before the app unmounts. */
  /** The session the conversation was recorded in; undefined when nothing was. */
  onExit: (info: { sessionId: string | undefined }) => void;
}

/** Clears the visible screen and the scrollback, then homes the cursor. */
const CLEAR_TERMINAL = "\u001b[2J\u001b[3J\u001b[H";

export function App(props: AppProps) {
  const theme = useMemo(() => createTheme(props.env), [props.env]);
  return (
    <ThemeContext.Provider value={theme}>
      <KeysProvider>
        <Session {...props} />
      </KeysProvider>
    </ThemeContext.Provider>
  );
}

/** The composition: transcript, dialogs, indexing line, prompt and status line, wired to the engine. */
function Session({
  project,
  openAgentSession,
  indexing,
  promptHistory,
  mentions,
  permissionMode,
  resume,
  initialPrompt,
  exitSignal,
  onExit,
}: AppProps) {
  const theme = useTheme();
  const { exit } = useApp();
  const { write } = useStdout();
  const columns = useTerminalWidth();
  const [hint, flash, dismissHint] = useFlash();
  const exiting = useRef(false);

  // A session opened for /model or /clear takes the mode and model chosen since, in the same tick.
  const initialMode = permissionMode ?? project.settings.permissionMode;
  const modes = usePermissionMode(initialMode);
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
  const editor = usePromptEditor(promptHistory, (problem) =>
    agent.print({ kind: "note", tone: "warning", text: `Prompt history could not be saved: ${problem}` }),
  );
  editorRef.current = editor;
  const provider = agent.session.provider;
  const banner = useCallback(
    (): TranscriptEntry => ({ kind: "banner", root: project.root, model: provider ? provider.model : "no model: answers from the index" }),
    [project, provider],
  );

  useMcpNotices(agent.session.mcp, agent.state.running, agent.print);
  const onNotice = useCallback((notice: IndexNotice) => agent.print({ kind: "note", tone: notice.tone, text: notice.text }), [agent.print]);
  // Files changed between answers are the user's edits: self-tuning retrieval reads them as an outcome.
  const agentSession = agent.session;
  useEffect(() => indexing.onFilesChanged((paths) => agentSession.filesChanged(paths)), [indexing, agentSession]);
  const index = useIndexing(indexing, onNotice);
  const consent = useIndexConsent(project.consent, (granted) => {
    if (granted) return indexing.start();
    indexing.disable();
    agent.print({
      kind: "note",
      tone: "warning",
      text: "Indexing is off: search_codebase and /search find nothing. `sylk index` allows it later.",
    });
  });

  // Once, at start: the banner, whether commands can be sandboxed here, and, when resuming, where the conversation stopped.
  // biome-ignore lint/correctness/useExhaustiveDependencies: printed once; a later session or provider prints its own notes.
  useEffect(() => {
    const { sandbox } = agent.session;
    const warnings = [...(sandbox.state === "unavailable" ? [`${describeSandbox(sandbox)}.`] : []), ...keptReadable(sandbox)];
    const unsandboxed: TranscriptEntry[] = provider ? warnings.map((text) => ({ kind: "note", tone: "warning", text })) : [];
    if (!agent.session.started) return agent.print(banner(), ...unsandboxed);
    const resumedId = agent.session.sessionId;
    if (!resumedId) return agent.print(banner(), ...unsandboxed);
    const recap = project.recap(resumedId, RECAP_ITEMS);
    const resumed: TranscriptEntry = {
      kind: "note",
      tone: "dim",
      text: `Resumed session ${resumedId.slice(0, 8)}${recap?.title ? `: ${recap.title}` : ""}`,
    };
    agent.print(banner(), ...unsandboxed, resumed, ...recapEntries(recap?.items ?? []));
  }, []);

  // `sylk "prompt"`: sent once the index question (if any) is answered.
  const initialSent = useRef(false);
  useEffect(() => {
    if (!initialPrompt || initialSent.current || consent.asking) return;
    initialSent.current = true;
    agent.submit(initialPrompt);
  }, [initialPrompt, consent.asking, agent.submit]);

  // Code highlighting loads once the screen is up, off the launch path.
  useEffect(() => void preloadHighlighter().catch(() => undefined), []);

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

  const submit = (text: string) => {
    // `# always use pnpm`: a note kept in memory, as users of other agents expect; it is not sent to the model.
    if (isMemoryNote(text)) {
      agent.print({ kind: "user", text: text.trim() });
      void runSlashCommand(`/memory add ${text.trim().replace(/^#\s*/, "")}`, slashContext());
      return;
    }
    // `/pipeline <task>` runs (or queues) like a prompt, whose line the run prints itself.
    if (!isSlashCommand(text) || /^\/pipeline\s+\S/.test(text.trim())) return agent.submit(text.trim());
    agent.print({ kind: "user", text: text.trim() });
    void runSlashCommand(text, slashContext());
  };
  const slashContext = (): SlashCommandContext => ({
    project,
    agent,
    indexing,
    banner,
    clearScreen: () => write(CLEAR_TERMINAL),
    switchModel: (model) => {
      modelRef.current = model;
      return agent.switchSession(agent.session.started ? { id: agent.session.sessionId } : undefined);
    },
    permissionMode: { initial: initialMode, set: (next) => modes.change(next, agent.session) },
    exit: requestExit,
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
          onExit={requestExit}
          {...(mentions ? { mentions } : {})}
          commands={() => mcpSlashCommands(agent.session.mcp)}
          placeholder={agent.state.running ? "Type to queue a message · Esc to interrupt" : "Ask anything · /help for commands"}
        />
      )}
      {agent.queued.map((prompt, position) => (
        <Text key={position} dimColor wrap="truncate-end">
          {"  "}queued: {visible(firstLine(prompt), { newlines: false })}
        </Text>
      ))}
      <StatusLine
        columns={columns}
        info={{
          model: provider
            ? {
                name: provider.model,
                contextWindow: windowTokensOf(agent.state, project.settings.windowTokens, provider),
              }
            : undefined,
          ...(agent.session.agentType !== DEFAULT_AGENT_TYPE ? { agent: agent.session.agentType } : {}),
          contextTokens: agent.state.contextTokens,
          references: agent.state.references,
          activeAgents: agent.state.tools.flatMap((tool) =>
            tool.subagent && tool.subagent.tokens === undefined ? [tool.subagent.agentId] : [],
          ),
          questions: pendingQuestions,
          ...(agent.state.predictedQuality !== undefined
            ? { quality: { predicted: agent.state.predictedQuality, ...(agent.state.agentId ? { agentId: agent.state.agentId } : {}) } }
            : {}),
          index,
          mode: modes.mode,
          ...(provider ? { costDollars: costSoFar(agent.state, provider) } : {}),
          ...(provider ? { sandbox: sandboxLabel(agent.session.sandbox) } : {}),
        }}
      />
      {hint && (
        <Box paddingX={1}>
          <Text color={theme.warning}>{hint}</Text>
        </Box>
      )}
    </Box>
  );
}

/** A queued prompt in one line: a long paste would otherwise be drawn in full under the prompt. */
function firstLine(prompt: string): string {
  const end = prompt.indexOf("\n");
  return end === -1 ? prompt : `${prompt.slice(0, end)} …`;
}
