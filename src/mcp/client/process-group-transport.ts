import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { signalProcessGroup } from "../../process-group.js";

/** Where process groups Sylk started are kept, to be ended with it (the agent's `CommandProcesses` is one). */
export interface ProcessGroups {
  /** A process started as the leader of group `pid`. */
  add(pid: number): void;
  /** That group is gone. */
  remove(pid: number): void;
}

export interface ProcessGroupTransportOptions {
  command: string;
  args: readonly string[];
  /** Added to the SDK's safe default environment (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
  env: Record<string, string>;
  cwd: string;
  /** Where the group is registered, so that Sylk ending by a signal or an exit ends it too. */
  processes: ProcessGroups;
  /** The server's stderr, line by line (the last lines explain a crash). */
  onStderr: (line: string) => void;
}

/** How long a server gets to end after SIGTERM before its group gets SIGKILL. */
const GRACE_MS = 1_000;
/** The last stderr characters kept of a partial line. */
const MAX_STDERR_LINE = 2_000;

/**
 * The SDK's stdio transport, with the server started as the leader of a
 * process group of its own: a server run through `npx` or a shell script
 * has children, and ending only the child the SDK started left them
 * running. Closing ends the whole group: SIGTERM, then SIGKILL after a
 * second.
 */
export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcessByStdio<Writable, Readable, Readable> | undefined;
  private readonly buffer = new ReadBuffer();
  private exited: Promise<void> = Promise.resolve();
  private stderrTail = "";

  constructor(private readonly options: ProcessGroupTransportOptions) {}

  /** The group's id (its leader's pid) while the server runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    const { command, args, env, cwd } = this.options;
    return new Promise((resolve, reject) => {
      const child = spawn(command, [...args], {
        env: { ...getDefaultEnvironment(), ...env },
        cwd,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once("close", () => done()));
      child.once("error", (error) => {
        reject(new Error(`cannot start \`${command}\`: ${error.message}`));
        this.onerror?.(error);
      });
      child.once("spawn", () => {
        if (child.pid !== undefined) this.options.processes.add(child.pid);
        resolve();
      });
      child.once("close", (code, signal) => {
        if (child.pid !== undefined) this.options.processes.remove(child.pid);
        if (this.child === child) {
          this.child = undefined;
          this.flushStderr();
          this.onerror?.(new Error(signal ? `the server was ended by ${signal}` : `the server exited with code ${code ?? "?"}`));
        }
        this.onclose?.();
      });
      child.stdin.on("error", (error) => this.onerror?.(error));
      child.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
      child.stderr.on("data", (chunk: Buffer) => this.stderrData(chunk));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child) return Promise.reject(new Error("the server is not running"));
    return new Promise((resolve) => {
      if (child.stdin.write(serializeMessage(message))) resolve();
      else child.stdin.once("drain", () => resolve());
    });
  }

  /** Ends the server and everything it started; resolves once the leader is gone. */
  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child?.pid) return;
    child.stdin.end();
    signalProcessGroup(child.pid, "SIGTERM");
    const gone = await Promise.race([this.exited.then(() => true), delay(GRACE_MS).then(() => false)]);
    // The leader may be gone while its children linger: the group gets SIGKILL either way.
    signalProcessGroup(child.pid, "SIGKILL");
    if (!gone) await Promise.race([this.exited, delay(GRACE_MS)]);
  }

  private receive(chunk: Buffer): void {
    this.buffer.append(chunk);
    for (;;) {
      try {
        const message = this.buffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        // A line that is not JSON-RPC (a server printing to stdout) is reported, and the next line read.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  private stderrData(chunk: Buffer): void {
    const lines = (this.stderrTail + chunk.toString("utf8")).split("\n");
    this.stderrTail = (lines.pop() ?? "").slice(-MAX_STDERR_LINE);
    for (const line of lines) if (line.trim()) this.options.onStderr(line);
  }

  private flushStderr(): void {
    if (this.stderrTail.trim()) this.options.onStderr(this.stderrTail);
    this.stderrTail = "";
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
