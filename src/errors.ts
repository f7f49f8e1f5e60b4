/**
 * Exit codes of the CLI. Fatal errors carry one; the CLI edge is the only
 * place that turns them into `process.exitCode`.
 */
export const ExitCode = {
  Success: 0,
  General: 1,
  Authentication: 41,
  BadInput: 42,
  Configuration: 52,
  TurnLimit: 53,
  FatalTool: 54,
  /** A `UserPromptSubmit` hook blocked the prompt: it was not sent. */
  Blocked: 55,
  Interrupted: 130,
  /** 128 + the signal's number, as a shell reports a process it ended. */
  HungUp: 129,
  Terminated: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export class FatalError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue = ExitCode.General,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ConfigError extends FatalError {
  constructor(message: string) {
    super(message, ExitCode.Configuration);
  }
}

export class BadInputError extends FatalError {
  constructor(message: string) {
    super(message, ExitCode.BadInput);
  }
}

/** The user has not allowed Sylk to index this project (yet). */
export class ConsentRequiredError extends FatalError {
  constructor(message: string) {
    super(message, ExitCode.BadInput);
  }
}

export class InterruptedError extends FatalError {
  constructor(message = "Interrupted.") {
    super(message, ExitCode.Interrupted);
  }
}

/**
 * The message of whatever was thrown: an Error's, an error-like object's
 * (one from another realm or a worker), or else the value as text, so a
 * report never reads "undefined" when a string or a number was thrown.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") return error.message;
  try {
    return String(error);
  } catch {
    // An object without a prototype has no toString to call.
    return Object.prototype.toString.call(error);
  }
}
