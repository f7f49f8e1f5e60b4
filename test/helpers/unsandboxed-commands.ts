import { unsandboxed } from "../../src/agent/sandbox/command-sandbox.js";
import { RepositoryIntegrity } from "../../src/agent/sandbox/repository-integrity.js";
import { CommandProcesses } from "../../src/agent/tools/command-processes.js";
import type { RunCommandDeps } from "../../src/agent/tools/run-command.js";

/** `run_command` as it runs with the sandbox off: for tests of the tool's own mechanics. */
export const unsandboxedCommands: RunCommandDeps = {
  sandbox: unsandboxed({ state: "off" }),
  networkFor: () => false,
  integrity: new RepositoryIntegrity(process.env),
  processes: new CommandProcesses(),
};
