import type { AgentFileError } from "../roles/custom-agents.js";
import { terminalField, terminalText } from "./terminal-text.js";

/** One line per agent file that did not load: its path and what is wrong. */
export function agentFileWarnings(errors: readonly AgentFileError[]): string[] {
  return errors.map((error) => `agent file ${terminalField(error.path)} not loaded: ${terminalText(error.message)}`);
}

/** The agent files that did not load, one stderr line each. */
export function warnAboutAgentFiles(errors: readonly AgentFileError[], stderr: NodeJS.WritableStream): void {
  for (const line of agentFileWarnings(errors)) stderr.write(`sylk: ${line}\n`);
}
