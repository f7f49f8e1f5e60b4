import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { pathToFileURL, fileURLToPath } from "node:url";

const COMPILED_LOCK = pathToFileURL(fileURLToPath(new URL("../../dist/src/project/index-lock.js", import.meta.url))).href;

/** A child process that tried to take a project's index lock with the real `IndexLock` (compiled: run `npm run build` first). */
export interface LockHolderProcess {
  child: ChildProcess;
  pid: number;
  /** Whether it got the lock. */
  held: boolean;
  /** Ends it as a crash would: no release. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const SCRIPT = `
import { IndexLock } from ${JSON.stringify(COMPILED_LOCK)};
const [path, root, heartbeatMs, startAt] = process.argv.slice(1);
const lock = new IndexLock(path, root, { heartbeatMs: Number(heartbeatMs), staleAfterMs: 60_000 });
// Racers spin until the same instant, so that their takeovers overlap.
while (Date.now() < Number(startAt)) {}
const result = lock.tryAcquire();
process.stdout.write(result.acquired ? "held\\n" : "busy\\n");
setInterval(() => {}, 1 << 30);
`;

/** Starts a process that takes the lock as a Sylk indexer would, and keeps it (heartbeat included) until killed. */
export async function holdIndexLock(
  lockPath: string,
  root: string,
  options: { heartbeatMs?: number; startAt?: number } = {},
): Promise<LockHolderProcess> {
  const args = [lockPath, root, String(options.heartbeatMs ?? 10_000), String(options.startAt ?? 0)];
  const child = spawn(process.execPath, ["--input-type=module", "-e", SCRIPT, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => (output += chunk));
  while (!output.includes("\n")) {
    const [event] = await Promise.race([
      once(child.stdout as NodeJS.ReadableStream, "data").then(() => ["data"]),
      once(child, "exit").then(() => ["exit"]),
    ]);
    if (event === "exit") throw new Error("the lock holder exited before saying whether it got the lock");
  }
  return {
    child,
    pid: child.pid as number,
    held: output.startsWith("held"),
    async kill(signal = "SIGKILL") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill(signal);
      await exited;
    },
  };
}
