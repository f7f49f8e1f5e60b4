import { stripVTControlCharacters } from "node:util";
import { Box } from "ink";
import { render } from "ink-testing-library";
import type { PermissionMode } from "../../src/agent/permissions/permission-policy.js";
import { App } from "../../src/tui/app.js";
import type { ResumeTarget } from "../../src/tui/hooks/use-agent.js";
import { openInteractiveSession, type InteractiveSession } from "../../src/app/interactive-session.js";
import { reactSettled } from "../helpers/react-work.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

export const KEY = {
  enter: "\r",
  up: "\u001b[A",
  down: "\u001b[B",
  right: "\u001b[C",
  tab: "\t",
  backspace: "\u007f",
  ctrlR: "\u0012",
  ctrlG: "\u0007",
  escape: "\u001b",
  ctrlC: "\u0003",
  ctrlD: "\u0004",
  pasteStart: "\u001b[200~",
  pasteEnd: "\u001b[201~",
} as const;

export interface RenderAppOptions {
  files?: Record<string, string>;
  /** Added to the temp project's environment (ANTHROPIC_API_KEY is empty unless given: no model). */
  env?: NodeJS.ProcessEnv;
  /** A remembered consent answer; undefined asks. */
  consent?: boolean;
  permissionMode?: PermissionMode;
  resume?: ResumeTarget;
  /** Terminal width (ink-testing-library's is 100). */
  columns?: number;
  /** An existing project to open again (a second session in it). */
  project?: TempProject;
  /** Passes with more files to index than this run in a `sylk index` process (the session's default otherwise). */
  separateIndexProcessAbove?: number;
}

export type RenderedApp = Awaited<ReturnType<typeof renderApp>>;

/** The real App on a real temp project, through ink-testing-library, with polling helpers. */
export async function renderApp(options: RenderAppOptions = {}) {
  const project = options.project ?? createTempProject(options.files ?? {});
  const env: NodeJS.ProcessEnv = { ...project.env, ANTHROPIC_API_KEY: "", NO_COLOR: "", ...options.env };
  const session: InteractiveSession = openInteractiveSession({
    root: project.root,
    env,
    ...(options.separateIndexProcessAbove === undefined ? {} : { separateIndexProcessAbove: options.separateIndexProcessAbove }),
  });
  if (options.consent !== undefined) session.services.consent.recordIndexConsent(options.consent, "test");
  let exitedWith: { sessionId: string | undefined } | undefined;
  let resolveExit: (info: { sessionId: string | undefined }) => void = () => undefined;
  const exited = new Promise<{ sessionId: string | undefined }>((resolve) => (resolveExit = resolve));
  const app = (
    <App
      project={session.screen}
      openAgentSession={session.openAgentSession}
      indexing={session.indexing}
      promptHistory={session.promptHistory}
      mentions={(query) => session.mentions.complete(query)}
      env={env}
      {...(options.permissionMode ? { permissionMode: options.permissionMode } : {})}
      {...(options.resume ? { resume: options.resume } : {})}
      onExit={(info) => {
        exitedWith = info;
        resolveExit(info);
      }}
    />
  );
  const instance = withColumns(options.columns, () => render(app));

  const frame = () => stripVTControlCharacters(instance.lastFrame() ?? "");
  const waitFor = async (check: string | RegExp | (() => boolean), timeoutMs = 20_000): Promise<void> => {
    const test =
      typeof check === "function" ? check : typeof check === "string" ? () => frame().includes(check) : () => check.test(frame());
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${String(check)}. Last frame:\n${frame()}`);
      await sleep(15);
    }
    // What just appeared subscribes to keys in an effect that runs after the frame.
    await reactSettled();
  };
  const write = async (keys: string) => {
    instance.stdin.write(keys);
    await reactSettled();
  };
  /** Types a prompt, waits until the prompt shows it, and presses Enter. */
  const submit = async (text: string) => {
    instance.stdin.write(text);
    const lastLine = text.split("\n").at(-1) ?? text;
    await waitFor(() => frame().includes(lastLine.slice(-30)));
    await write(KEY.enter);
  };

  let closed: Promise<void> | undefined;

  // The first frames need the input hooks attached before keys arrive.
  await waitFor(() => frame().includes("Sylk"));

  return {
    project,
    session,
    services: session.services,
    instance,
    frame,
    /** Every frame ever drawn, without escapes: what the user saw pass by. */
    frames: () => instance.frames.map((text) => stripVTControlCharacters(text)),
    rawFrame: () => instance.lastFrame() ?? "",
    waitFor,
    write,
    submit,
    exited,
    exitedWith: () => exitedWith,
    /** Unmounts, shuts the session down as `sylk` does, removes the project unless it was passed in; once, however often it is called. */
    close(): Promise<void> {
      closed ??= (async () => {
        instance.unmount();
        await session.shutdown();
        if (!options.project) project.cleanup();
      })();
      return closed;
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * ink-testing-library's stdout is always 100 columns. The first frame is
 * drawn inside `render`, so the width is set on the prototype for that call
 * and then pinned on the instance.
 */
function withColumns(columns: number | undefined, draw: () => ReturnType<typeof render>): ReturnType<typeof render> {
  if (columns === undefined) return draw();
  const probe = render(<Box />);
  const prototype = Object.getPrototypeOf(probe.stdout) as object;
  probe.unmount();
  const original = Object.getOwnPropertyDescriptor(prototype, "columns");
  Object.defineProperty(prototype, "columns", { configurable: true, get: () => columns });
  try {
    const instance = draw();
    Object.defineProperty(instance.stdout, "columns", { configurable: true, get: () => columns });
    return instance;
  } finally {
    if (original) Object.defineProperty(prototype, "columns", original);
  }
}

/** Makes the terminal narrower (or wider) after start, as a resize does. */
export function resize(app: RenderedApp, columns: number): void {
  Object.defineProperty(app.instance.stdout, "columns", { configurable: true, get: () => columns });
  app.instance.stdout.emit("resize");
}
