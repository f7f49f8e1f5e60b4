/**
 * Runs grep's matching on its own thread, so that a pattern that backtracks
 * for ever (`(a+)+$` on a long line of a's) can be stopped: the main thread
 * watches which file this thread is on (a shared counter) and terminates it
 * when one takes too long, or when the call is cancelled. The files are read
 * here too, and listed here when the project index cannot list them, so the
 * main thread (which commits the index while one is built) never waits on
 * the disk.
 */
import { parentPort } from "node:worker_threads";
import type { IndexConfig } from "../src/config/schema.js";
import { searchFiles, UnmaskedFiles, type FileHits, type GrepSearch } from "../src/agent/tools/grep-matcher.js";
import { WalkedTrees } from "../src/agent/tools/grep-walk.js";

export type GrepWorkerRequest =
  | {
      id: number;
      kind: "search";
      search: GrepSearch;
      /** Shared with the main thread: [0] is the index (in the whole search) of the file being searched. */
      progress: Int32Array;
    }
  /** The files the indexer would read under `root`, '/'-separated and relative to it. */
  | { id: number; kind: "list"; root: string; config: IndexConfig };

export type GrepWorkerMessage =
  | { id: number; kind: "hits"; hits: FileHits }
  | { id: number; kind: "done"; more: boolean }
  | { id: number; kind: "listed"; files: string[] }
  | { id: number; kind: "error"; message: string };

// Kept while the thread is warm: the next search skips masking what masking left unchanged, and walks only what changed.
const unmasked = new UnmaskedFiles();
const walked = new WalkedTrees();

parentPort?.on("message", (request: GrepWorkerRequest) => {
  const post = (message: GrepWorkerMessage) => parentPort?.postMessage(message);
  const fail = (error: unknown) => post({ id: request.id, kind: "error", message: error instanceof Error ? error.message : String(error) });
  if (request.kind === "list") {
    walked.list(request.root, request.config).then((files) => post({ id: request.id, kind: "listed", files }), fail);
    return;
  }
  try {
    const { more } = searchFiles(
      request.search,
      (file) => Atomics.store(request.progress, 0, file),
      (hits) => post({ id: request.id, kind: "hits", hits }),
      unmasked,
    );
    post({ id: request.id, kind: "done", more });
  } catch (error) {
    fail(error);
  }
});
