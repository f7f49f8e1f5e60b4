import { writeFileSync } from "node:fs";
import { render } from "ink";
import type { PermissionMode } from "../agent/permissions/permission-policy.js";
import { App } from "./app.js";
import type { ResumeTarget } from "./hooks/use-agent.js";
import type { InteractiveSession } from "../app/interactive-session.js";

export interface StartTuiOptions {
  session: InteractiveSession;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  permissionMode?: PermissionMode;
  resume?: ResumeTarget;
  /** `sylk "prompt"`: sent once the session is open (after the index question, when there is one). */
  initialPrompt?: string;
  /** Aborted by a SIGINT from outside (raw mode turns the user's Ctrl-C into a key instead). */
  signal?: AbortSignal;
}

/** Bracketed paste: the terminal marks pasted text, so its line breaks are not taken for Enter. */
const PASTE_MODE_ON = "\u001b[?2004h";
const PASTE_MODE_OFF = "\u001b[?2004l";

/** Draws the TUI until the user leaves; returns the session the conversation was recorded in, if it was. */
export async function startTui(options: StartTuiOptions): Promise<{ sessionId: string | undefined }> {
  const { session, stdout } = options;
  let sessionId: string | undefined;
  const renderLog = options.env.SYLK_RENDER_LOG ? { file: options.env.SYLK_RENDER_LOG, frames: [] as string[] } : undefined;
  stdout.write(PASTE_MODE_ON);
  // Raw before the first frame: Ink turns it on in an effect after the frame is drawn, and keys typed as the
  // screen appears went to the terminal's line editing meanwhile (Enter read as a line feed, echoed over the screen).
  if (options.stdin.isTTY) options.stdin.setRawMode(true);
  // The MCP servers start once the first frame is out: loading the SDK (0.1–0.4 s of this thread) and spawning
  // them would delay it. Started at most once; `start()` is idempotent besides.
  let serversStarted = false;
  const startServers = () => {
    if (serversStarted) return;
    serversStarted = true;
    setImmediate(() => session.mcp?.start());
  };
  const instance = render(
    <App
      project={session.screen}
      openAgentSession={session.openAgentSession}
      indexing={session.indexing}
      promptHistory={session.promptHistory}
      mentions={(query) => session.mentions.complete(query)}
      env={options.env}
      {...(options.permissionMode ? { permissionMode: options.permissionMode } : {})}
      {...(options.resume ? { resume: options.resume } : {})}
      {...(options.initialPrompt ? { initialPrompt: options.initialPrompt } : {})}
      {...(options.signal ? { exitSignal: options.signal } : {})}
      onExit={(info) => {
        sessionId = info.sessionId;
      }}
    />,
    {
      stdin: options.stdin,
      stdout,
      stderr: options.stderr,
      // Ctrl-C cancels a turn first; the app decides when it means "quit".
      exitOnCtrlC: false,
      // Shift+Enter is only distinguishable from Enter with the kitty protocol; Ink enables it where the terminal has it.
      kittyKeyboard: { mode: "auto", flags: ["disambiguateEscapeCodes"] },
      onRender: ({ renderTime }: { renderTime: number }) => {
        // SYLK_RENDER_LOG=<file>: each frame's time and render time (ms), for scripts/bench-markdown-render.mjs.
        renderLog?.frames.push(`${Date.now()} ${renderTime.toFixed(3)}`);
        startServers();
      },
    },
  );
  try {
    await instance.waitUntilExit();
  } finally {
    stdout.write(PASTE_MODE_OFF);
    // Written once at the end: a write per frame would be part of what is measured.
    if (renderLog) writeFileSync(renderLog.file, `${renderLog.frames.join("\n")}\n`);
  }
  return { sessionId };
}
