import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import * as z from "zod";
import { type GroupEnding, watchProcessGroup } from "../../process-group.js";
import { withoutSecretVariables } from "../../security/secret-variables.js";
import { maskSecrets } from "../../security/secrets.js";
import { unsandboxed, type CommandSandbox, type PreparedCommand } from "../sandbox/command-sandbox.js";
import { integrityNote, type RepositoryIntegrity } from "../sandbox/repository-integrity.js";
import type { CommandProcesses } from "./command-processes.js";
import { defineTool, toolDescription, ToolError, type ToolContext, type ToolOutput } from "./tool.js";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
/** Output kept: the beginning (where builds report the first error) and the longer end (where tests summarise). */
const HEAD_CHARACTERS = 10_000;
const TAIL_CHARACTERS = 20_000;

const schema = z.strictObject({
  command: z.string().trim().min(1).describe("The shell command to run in the project root."),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(MAX_TIMEOUT_MS)
    .default(DEFAULT_TIMEOUT_MS)
    .describe("Kill the command after this many milliseconds (at most 600000)."),
  description: z.string().max(200).optional().describe("A short description of what the command does, shown to the user."),
  unsandboxed: z
    .boolean()
    .default(false)
    .describe(
      "Run outside the sandbox. Only after the command failed because of the sandbox; the user is asked every time, and a run that cannot ask refuses it.",
    ),
});

/** Keeps the first and the last characters of a stream, counting what falls in between, and its lines. */
class HeadTailBuffer {
  private head = "";
  private tail = "";
  private total = 0;
  private newlines = 0;

  push(chunk: string): void {
    this.total += chunk.length;
    for (let index = chunk.indexOf("\n"); index !== -1; index = chunk.indexOf("\n", index + 1)) this.newlines++;
    const room = HEAD_CHARACTERS - this.head.length;
    if (room > 0) {
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    this.tail += chunk;
    if (this.tail.length > TAIL_CHARACTERS * 2) this.tail = this.tail.slice(-TAIL_CHARACTERS);
  }

  /** Lines of the whole stream, the last one whether or not it ended with a line break. */
  lines(): number {
    const last = this.tail.at(-1) ?? this.head.at(-1);
    return this.newlines + (last !== undefined && last !== "\n" ? 1 : 0);
  }

  text(): string {
    const tail = this.tail.slice(-TAIL_CHARACTERS);
    const omitted = this.total - this.head.length - tail.length;
    const mask = (text: string) => maskSecrets(text).text;
    if (omitted <= 0) return mask(this.head + tail);
    return `${mask(this.head)}\n[… ${omitted} characters omitted …]\n${mask(tail)}`;
  }
}

type Ending = Exclude<GroupEnding, { kind: "not_started" }>;

function describeEnding(ending: Ending, timeoutMs: number): { footer: string; status: string } {
  switch (ending.kind) {
    case "exit":
      return { footer: `exit code: ${ending.code}`, status: `exit ${ending.code}` };
    case "signal":
      return { footer: `killed by signal ${ending.signal}`, status: ending.signal };
    case "timeout":
      return { footer: `timed out after ${timeoutMs} ms; the command and its child processes were killed`, status: "timed out" };
    case "aborted":
      return { footer: "aborted: the command was cancelled and its processes were killed", status: "aborted" };
  }
}

/**
 * How a command ended, read back from the footer `run_command` wrote under its
 * output: the exit code, or null when it was killed, timed out or aborted.
 */
export function commandExitCode(output: string): { exitCode: number | null; ending: string } | undefined {
  const footer = /\n(exit code: (\d+)|killed by signal \S+|timed out after \d+ ms|aborted)\b[^\n]*(?:\n[^\n]*)?$/.exec(output);
  if (!footer) return undefined;
  return footer[2] !== undefined
    ? { exitCode: Number(footer[2]), ending: `exit ${footer[2]}` }
    : { exitCode: null, ending: (footer[1] as string).replace(/ after \d+ ms$/, "") };
}

const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

export interface RunCommandDeps {
  sandbox: CommandSandbox;
  /** Whether this command may reach the network from inside the sandbox (`sandbox.network`, `network(…)` allow rules). */
  networkFor: (command: string) => boolean | Promise<boolean>;
  /** Compares what decides later runs (`.git`, Sylk's settings) before and after each command. */
  integrity: RepositoryIntegrity;
  /** The running commands' process groups, stopped when Sylk is ended. */
  processes: CommandProcesses;
}

/** Told to the model when a sandboxed command fails, so that it can say why and what the user can change. */
const SANDBOX_NOTE =
  "The command ran in a sandbox: only the project and /tmp are writable, .git and Sylk's settings are read-only " +
  "(so git commands that write the repository, such as commit, add or checkout, fail), credential directories are hidden, " +
  "and the network is off unless allowed. If it failed because of that, tell the user; they can add sandbox.writableDirectories, " +
  "set sandbox.network, add a network(<command pattern>) allow rule, or run with --no-sandbox. " +
  "You may also call run_command again with unsandboxed: true, which asks the user to approve this one run outside the sandbox.";

/** What runs a command outside the sandbox, when the user approved exactly that. */
const OUTSIDE_THE_SANDBOX = unsandboxed({ state: "off" });

export function createRunCommandTool(deps: RunCommandDeps) {
  return defineTool({
    name: "run_command",
    description: toolDescription(import.meta.url, "run-command.txt"),
    schema,
    kind: "execute",
    targets: (input) => ({ command: input.command, ...(input.unsandboxed ? { unsandboxed: true } : {}) }),
    execute: (input, context) => runCommand(input, context, deps),
  });
}

async function runCommand(input: z.infer<typeof schema>, context: ToolContext, deps: RunCommandDeps): Promise<ToolOutput> {
  if (context.signal.aborted) throw new ToolError("The command was cancelled before it started.");
  if (deps.processes.endingBy) throw new ToolError(`The command was not started: Sylk is ending (${deps.processes.endingBy}).`);
  const sandbox = input.unsandboxed ? OUTSIDE_THE_SANDBOX : deps.sandbox;
  const network = await deps.networkFor(input.command);
  const prepared = sandbox.prepare(SHELL, input.command, withoutSecretVariables(), {
    root: context.root,
    writable: context.extraDirectories,
    network,
  });
  const watched = { nestedRepositories: prepared.nestedRepositories, isPlaceholder: (path: string) => deps.sandbox.isPlaceholder(path) };
  const before = deps.integrity.fingerprint(context.root, watched);
  let ran: { ending: Ending | Error; text: string; lines: number };
  try {
    ran = await runPrepared(prepared, input.timeout_ms, context, deps.processes);
  } finally {
    prepared.release();
  }
  const report = deps.integrity.check(context.root, before, watched);
  const { ending, text, lines } = ran;
  if (ending instanceof Error) throw new ToolError(`The command could not be started: ${ending.message}`);
  const label = input.description ?? (input.command.length > 80 ? `${input.command.slice(0, 79)}…` : input.command);
  const { footer, status } = describeEnding(ending, input.timeout_ms);
  const failed = !(ending.kind === "exit" && ending.code === 0);
  const sandboxed = sandbox.status.state === "on";
  const notes = [
    ...(failed && sandboxed ? [SANDBOX_NOTE] : []),
    ...prepared.notes.map((note) => `Note: ${note}`),
    ...(report.changes.length > 0 ? [`Warning: ${integrityNote(report)}`] : []),
  ];
  return {
    output: `${text === "" ? "(no output)" : text.replace(/\n$/, "")}\n\n${footer}${notes.map((note) => `\n${note}`).join("")}`,
    display: `${label} (${status}${input.unsandboxed ? ", outside the sandbox" : ""})${report.changes.length > 0 ? ` · warning: ${report.changes.join(", ")}` : ""}`,
    ...(text.trim() !== "" ? { details: text.replace(/\n$/, ""), detailsLines: lines } : {}),
    isError: failed,
  };
}

/** Starts the prepared command in a process group of its own and waits until it ends, is timed out or is aborted. */
async function runPrepared(
  prepared: PreparedCommand,
  timeoutMs: number,
  context: ToolContext,
  processes: CommandProcesses,
): Promise<{ ending: Ending | Error; text: string; lines: number }> {
  const { plan } = prepared;
  const output = new HeadTailBuffer();
  const child = spawn(plan.file, plan.args, {
    cwd: context.root,
    env: plan.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      output.push(chunk);
      context.onOutput?.(maskSecrets(chunk).text);
    });
  }
  if (child.pid !== undefined) processes.add(child.pid);
  const ended = await watchProcessGroup(child, { timeoutMs, signal: context.signal });
  const ending = ended.kind === "not_started" ? ended.error : ended;
  if (child.pid !== undefined) processes.remove(child.pid);
  return { ending, text: output.text(), lines: output.lines() };
}
