import type { AgentFileError } from "../roles/custom-agents.js";
import { terminalField, terminalText } from "./terminal-text.js";

/** One stderr line per agent file that did not load: its path and what is wrong. */
export function warnAboutAgentFiles(errors: readonly AgentFileError[], stderr: NodeJS.WritableStream): void {
  for (const error of errors) stderr.write(`sylk: agent file ${terminalField(error.path)} not loaded: ${terminalText(error.message)}\n`);
}
