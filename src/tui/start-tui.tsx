import { historyNotSavedNote } from "../app/prompt-history.js";
import type { PermissionMode } from "../agent/permissions/permission-policy.js";
import { SessionScreen } from "./app.js";
import type { ResumeTarget } from "./hooks/use-agent.js";
import type { InteractiveSession } from "../app/interactive-session.js";
import type { TerminalScreen } from "./launch-frame.js";

export interface StartTuiOptions {
  session: InteractiveSession;
  env: NodeJS.ProcessEnv;
  permissionMode?: PermissionMode;
  resume?: ResumeTarget;
  /** `sylk "prompt"`: sent once the session is open (after the index question, when there is one). */
  initialPrompt?: string;
  /** What opening the project found wrong, said at the top of the transcript (the screen is already drawn). */
  notices?: readonly string[];
  /** Aborted by a SIGINT from outside (raw mode turns the user's Ctrl-C into a key instead). */
  signal?: AbortSignal;
}

/**
 * Draws the session's screen in the launch frame's place, going on from what
 * was typed there, until the user leaves; returns the session the
 * conversation was recorded in, if it was.
 */
export async function startTui(screen: TerminalScreen, options: StartTuiOptions): Promise<{ sessionId: string | undefined }> {
  const { session } = options;
  let sessionId: string | undefined;
  // The MCP servers start once the first frame is out: loading the SDK (0.1–0.4 s of this thread) and spawning
  // them would delay it. Started at most once; `start()` is idempotent besides.
  let serversStarted = false;
  const startServers = () => {
    if (serversStarted) return;
    serversStarted = true;
    setImmediate(() => session.mcp?.start());
  };
  // Read and handed over in one tick: a key read between the two would be lost to both screens.
  const typed = screen.typed();
  const notices = [...(options.notices ?? [])];
  for (const entry of typed.history) {
    const problem = session.promptHistory.add(entry);
    if (problem) notices.push(historyNotSavedNote(problem));
  }
  await screen.replaceWith(
    <SessionScreen
      project={session.screen}
      openAgentSession={session.openAgentSession}
      indexing={session.indexing}
      promptHistory={session.promptHistory}
      mentions={(query) => session.mentions.complete(query)}
      env={options.env}
      {...(options.permissionMode ? { permissionMode: options.permissionMode } : {})}
      {...(options.resume ? { resume: options.resume } : {})}
      {...(options.initialPrompt ? { initialPrompt: options.initialPrompt } : {})}
      {...(typed.draft ? { initialDraft: typed.draft } : {})}
      {...(typed.sent.length > 0 ? { typedBeforeOpen: typed.sent } : {})}
      {...(notices.length > 0 ? { startNotices: notices } : {})}
      {...(options.signal ? { exitSignal: options.signal } : {})}
      onExit={(info) => {
        sessionId = info.sessionId;
      }}
    />,
    startServers,
  );
  return { sessionId };
}
