/**
 * The entry piscina loads for the file workers. CommonJS on purpose: piscina
 * loads its entry with `require()`, and on Node ≥ 20.19 `require()` of an ES
 * module instantiates the whole graph synchronously; a worker terminated in
 * the middle of that (a pool closed while its threads are still starting)
 * aborts the entire process with a V8 fatal error. A dynamic `import()` is
 * asynchronous and can be terminated safely, so the ES module worker
 * (`file-worker.js`, or its bundle) is imported from here, at once, as piscina would have.
 */
import fs = require("node:fs");
import path = require("node:path");

type ProcessBatch = (input: unknown) => Promise<unknown>;

/**
 * The worker bundled into one file (`scripts/bundle.mjs`) where the build made
 * it: a worker's imports took 61–83 ms as ≈ 120 module files, each resolved,
 * read and compiled on its own thread; else the compiled module graph.
 */
const BUNDLED = "./file-worker.bundle.js";
const entry = fs.existsSync(path.join(__dirname, BUNDLED)) ? BUNDLED : "./file-worker.js";

const loaded: Promise<ProcessBatch> = import(entry).then((module: { default: ProcessBatch }) => module.default);
// A failed import surfaces in the first task; not as an unhandled rejection before it.
loaded.catch(() => undefined);

function processBatch(input: unknown): Promise<unknown> {
  return loaded.then((run) => run(input));
}
/** Which module the worker runs (read by tests). */
processBatch.entry = entry;

export = processBatch;
