import { isCheckCommand } from "../../../signals/check-command.js";
import { commandExitCode } from "../run-command.js";
import { isInfrastructureFailure, type ToolDefinition } from "../tool.js";
import { renderTestRun, testRunOf, type TestRun } from "./test-run-summary.js";
import { errorMessage } from "../../../errors.js";

/** A `test_result` entry for the running session, at its current turn. */
export interface TestRunEntry {
  contentType: "test_result";
  content: string;
  metadata: { testRun: TestRun };
}

export interface TestRunRecorderDeps {
  /** Appends the entry to the session that ran the command (nothing when there is none). */
  record(entry: TestRunEntry): Promise<unknown>;
  /** Milliseconds; `Date.now` unless a test pins it. */
  now?: () => number;
}

/**
 * The tools, with every `run_command` whose command is a check (a test run,
 * build, type check or linter: `isCheckCommand`) also recorded as a
 * `test_result` entry: command, exit code, duration, and the counts and
 * failing names when the output holds a summary Sylk recognises. The
 * command's result goes back to the model unchanged. A failure to record is
 * not the command's failure (the result says the run was not recorded),
 * except a broken database, which ends the run as any tool's would.
 */
export function recordTestRuns(tools: readonly ToolDefinition[], deps: TestRunRecorderDeps): ToolDefinition[] {
  const now = deps.now ?? Date.now;
  return tools.map((tool) =>
    tool.name === "run_command"
      ? {
          ...tool,
          execute: async (input, context) => {
            const command = (input as { command?: unknown }).command;
            if (typeof command !== "string" || !isCheckCommand(command)) return tool.execute(input, context);
            const started = now();
            const output = await tool.execute(input, context);
            const ending = commandExitCode(output.output);
            if (ending) {
              const run = testRunOf(command, ending, output.output, Math.max(0, now() - started));
              try {
                await deps.record({ contentType: "test_result", content: renderTestRun(run), metadata: { testRun: run } });
              } catch (error) {
                if (isInfrastructureFailure(error)) throw error;
                // The command ran and its result stands; only the history lacks this run, and says so.
                return { ...output, output: `${output.output}\n(Not recorded in the test history: ${errorMessage(error)})` };
              }
            }
            return output;
          },
        }
      : tool,
  );
}
