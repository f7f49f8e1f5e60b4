/**
 * Runs grep's matching on its own thread, so that a pattern that backtracks
 * for ever (`(a+)+$` on a long line of a's) can be stopped: the main thread
 * watches which file this thread is on (a shared counter) and terminates it
 * when one takes too long, or when the call is cancelled. The files are read
 * here too, so the main thread never waits on them.
 */
import { parentPort } from "node:worker_threads";
import { searchFiles, UnmaskedFiles, type FileHits, type GrepSearch } from "../src/agent/tools/grep-matcher.js";

export interface GrepWorkerRequest {
  id: number;
  search: GrepSearch;
  /** Shared with the main thread: [0] is the index of the file being searched. */
  progress: Int32Array;
}

export type GrepWorkerMessage =
  | { id: number; kind: "hits"; hits: FileHits }
  | { id: number; kind: "done"; more: boolean }
  | { id: number; kind: "error"; message: string };

// Kept while the thread is warm: the next search skips masking what masking left unchanged.
const unmasked = new UnmaskedFiles();

parentPort?.on("message", (request: GrepWorkerRequest) => {
  const post = (message: GrepWorkerMessage) => parentPort?.postMessage(message);
  try {
    const { more } = searchFiles(
      request.search,
      (file) => Atomics.store(request.progress, 0, file),
      (hits) => post({ id: request.id, kind: "hits", hits }),
      unmasked,
    );
    post({ id: request.id, kind: "done", more });
  } catch (error) {
    post({ id: request.id, kind: "error", message: error instanceof Error ? error.message : String(error) });
  }
});
