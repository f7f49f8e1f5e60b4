/**
 * Loads the vector hot tier on its own thread, so that an interactive
 * session gets the fast scan without holding the thread that draws the
 * screen (0.3–0.8 s for 86k vectors there). It reads sqlite-vec's storage a
 * block at a time through a read-only connection of its own (plain SQL, no
 * extension), fills a scanner in a shared WebAssembly memory, and answers
 * with that memory and the chunk id of every slot; the main thread takes
 * the scanner over (`Int8VectorScan.restore`).
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { Int8VectorScan, type Int8VectorScanState } from "../src/search/int8-vector-scan.js";
import { visitVec0Blocks } from "../src/store/vec0-blocks.js";

export interface VectorLoadRequest {
  databasePath: string;
  dimensions: number;
}

export type VectorLoadResponse = { state: Int8VectorScanState; ids: Int32Array } | { error: string };

const { databasePath, dimensions } = workerData as VectorLoadRequest;

function load(): VectorLoadResponse {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    const scan = new Int8VectorScan(dimensions);
    const stored = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM chunk_vectors_rowids").get()?.n ?? 0;
    scan.reserve(stored);
    let ids = new Int32Array(Math.max(stored, 1));
    let count = 0;
    visitVec0Blocks(db, "chunk_vectors", dimensions, (id, vector) => {
      if (count === ids.length) {
        const grown = new Int32Array(ids.length * 2);
        grown.set(ids);
        ids = grown;
      }
      scan.set(count, vector);
      ids[count++] = id;
    });
    return { state: scan.state, ids: ids.slice(0, count) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    db.close();
  }
}

const response = load();
parentPort?.postMessage(response, "ids" in response ? [response.ids.buffer as ArrayBuffer] : []);
