/** What a command needs from the process, passed in so tests can run commands in-process. */
export interface CliContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
}
