import { spawn, execFileSync } from "node:child_process";

export interface PlantedFifo {
  path: string;
  /** Stops the guard (call in afterEach). */
  remove(): void;
}

/**
 * A FIFO at `path`, as a hostile repository plants one. Code that opens it
 * for reading waits for a writer, and a synchronous read holds the test's
 * own thread, where no timeout can fire. So a guard process opens it for
 * writing after `releaseAfterMs` and closes it a second later: a reader that
 * blocked is released with nothing read, and the test fails on what it
 * expected instead of hanging the suite. Code that never opens the FIFO
 * leaves the guard waiting until `remove()` kills it.
 */
export function plantFifo(path: string, releaseAfterMs = 10_000): PlantedFifo {
  execFileSync("mkfifo", [path]);
  const guard = spawn("sh", ["-c", `sleep ${releaseAfterMs / 1000}; exec 3>"$1"; sleep 1`, "guard", path], {
    stdio: "ignore",
    detached: true,
  });
  return {
    path,
    remove() {
      if (guard.exitCode !== null || guard.pid === undefined) return;
      try {
        process.kill(-guard.pid, "SIGKILL"); // its group: the shell and its sleep
      } catch {
        // it ended meanwhile
      }
    },
  };
}
