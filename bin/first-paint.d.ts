/** What the launch frame's prompt says while it is empty. */
export const LAUNCH_PLACEHOLDER: string;
/** The launch frame's line under the prompt. */
export const OPENING_LINE: string;
/** The narrowest terminal the first paint draws in. */
export const FIRST_PAINT_MIN_COLUMNS: number;

interface TerminalIn {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => unknown;
  read(): Buffer | string | null;
  on(event: "readable", listener: () => void): unknown;
  removeListener(event: "readable", listener: () => void): unknown;
  pause?(): unknown;
  unref?(): unknown;
}
interface TerminalOut {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/** A plain `sylk`, or `sylk -c`/`--continue`: the interactive session, with nothing commander could reject. */
export function launchesSession(args: readonly string[]): boolean;
/** Whether the launch frame is certain to come next for these arguments and terminal. */
export function paintsFirst(args: readonly string[], stdin: TerminalIn, stdout: TerminalOut, env: NodeJS.ProcessEnv): boolean;
/** The launch frame's lines for a prompt holding `text`, as Ink draws them at `columns`. */
export function launchFrameLines(text: string, columns: number, env: NodeJS.ProcessEnv): string[];

/** The painted prompt, until the launch frame takes it over. */
export interface PaintedPrompt {
  /**
   * Takes the paint off the screen and stops reading, once every key typed so far is read: they stay kept for
   * the prompt (a question comes first, which they must not answer). Safe to call twice.
   */
  setAside(): Promise<void>;
  /** Erases the paint and hands over the bytes typed so far, in order (once; empty after). */
  takeTyped(): Buffer;
  /** Nothing will take the paint over: erased, and the terminal given back (cooked mode, cursor shown). */
  release(): void;
}

export function paintLaunchPrompt(options: {
  args: readonly string[];
  stdin: TerminalIn;
  stdout: TerminalOut;
  env: NodeJS.ProcessEnv;
}): PaintedPrompt | undefined;
