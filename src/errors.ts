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
