/** What a command needs from the process, passed in so tests can run commands in-process. */
export interface CliContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** The launch prompt `bin/sylk.js` painted before the CLI loaded (`bin/first-paint.js`), for the launch frame to take over. */
  firstPaint?: FirstPaint;
}

/** The painted launch prompt, its keys kept until the launch frame takes them (docs/DESIGN-NOTES.md, "The first paint"). */
export interface FirstPaint {
  /** Reads every key typed so far and keeps it for the prompt, then takes the paint off the screen: a question comes first, which those keys must not answer. */
  setAside(): Promise<void>;
  /** Erases the paint and hands over the bytes typed so far, in order. */
  takeTyped(): Buffer;
  /** Nothing will take the paint over: erased, and the terminal given back before an error is printed. */
  release(): void;
}
