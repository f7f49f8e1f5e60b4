/**
 * The entry piscina loads for the file workers. CommonJS on purpose: piscina
 * loads its entry with `require()`, and on Node ≥ 20.19 `require()` of an ES
 * module instantiates the whole graph synchronously; a worker terminated in
 * the middle of that (a pool closed while its threads are still starting)
 * aborts the entire process with a V8 fatal error. A dynamic `import()` is
 * asynchronous and can be terminated safely, so the ES module worker
 * (`file-worker.js`) is imported from here, at once, as piscina would have.
 */
type ProcessBatch = (input: unknown) => Promise<unknown>;

const loaded: Promise<ProcessBatch> = import("./file-worker.js").then((module) => module.default);
// A failed import surfaces in the first task; not as an unhandled rejection before it.
loaded.catch(() => undefined);

function processBatch(input: unknown): Promise<unknown> {
  return loaded.then((run) => run(input));
}

export = processBatch;
