#!/usr/bin/env node
// What a file worker's answers cost the main thread to receive, with each
// chunk's vector in a buffer of its own (as the featurizer makes them)
// against each file's vectors packed into one buffer (`packVectors` below,
// measured and not merged: docs/BENCHMARKS.md, "Four small cuts rebuilt"),
// copied by the structured clone or moved (transferred). One worker processes the
// tree's first --files files with the build's `FileBatchProcessor`, in tasks
// of 32 files as the pool's, then posts every task's answer to the main
// thread in each form, the forms alternated round by round; each side reads
// its own thread's CPU (`process.threadCpuUsage`, user + system) over the
// posts (the worker's includes the packing) and over the receipts (the main
// thread does nothing else meanwhile).
//
//   node scripts/bench-vector-receive.mjs --tree <dir> [--build <checkout, built>] [--files 3000] [--rounds 6] [--json]
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { inTurn, median } from "./lib/alternated-rounds.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    build: { type: "string", default: "." },
    files: { type: "string", default: "3000" },
    rounds: { type: "string", default: "6" },
    json: { type: "boolean", default: false },
  },
});
if (!values.tree || !existsSync(values.tree)) {
  console.error("Usage: node scripts/bench-vector-receive.mjs --tree <dir> [--build <checkout>] [--files 3000] [--rounds 6]");
  process.exit(2);
}
const tree = resolve(values.tree);
const modules = (path) => pathToFileURL(join(resolve(values.build), "dist", "src", path)).href;
const FORMS = ["a buffer a chunk", "packed, copied", "packed, moved"];

const workerSource = `
  const { parentPort, workerData } = require("node:worker_threads");
  (async () => {
    const { loadConfig } = await import(workerData.modules.config);
    const { scanProject } = await import(workerData.modules.scanner);
    const { FileBatchProcessor } = await import(workerData.modules.batch);
    // Each file's chunk vectors copied into one buffer, each chunk's vector a view of it; the buffers, to transfer.
    const packVectors = (files) => {
      const buffers = [];
      for (const file of files) {
        let length = 0;
        for (const chunk of file.chunks) if (chunk.vector) length += chunk.vector.length;
        if (length === 0) continue;
        const packed = new Float32Array(length);
        let offset = 0;
        for (const chunk of file.chunks) {
          if (!chunk.vector) continue;
          packed.set(chunk.vector, offset);
          chunk.vector = packed.subarray(offset, offset + chunk.vector.length);
          offset += chunk.vector.length;
        }
        buffers.push(packed.buffer);
      }
      return buffers;
    };
    const { config } = loadConfig({ projectRoot: workerData.tree, env: {} });
    const scan = await scanProject(workerData.tree, config.index);
    const files = scan.files.slice(0, workerData.files);
    const processor = new FileBatchProcessor();
    const answers = [];
    for (let at = 0; at < files.length; at += 32) {
      answers.push(await processor.process({ root: workerData.tree, files: files.slice(at, at + 32), chunkLines: config.index.chunkLines, embeddingDimensions: 256 }));
    }
    // Each form starts from answers as the featurizer made them: a fresh copy of every vector.
    const fresh = () => answers.map((files) => files.map((file) => ({ ...file, chunks: file.chunks.map((chunk) => ({ ...chunk, vector: chunk.vector && chunk.vector.slice() })) })));
    let chunks = 0;
    for (const files of answers) for (const file of files) chunks += file.chunks.length;
    parentPort.postMessage({ ready: true, tasks: answers.length, chunks });
    parentPort.on("message", ({ form }) => {
      const copies = fresh();
      const cpu = process.threadCpuUsage();
      for (const files of copies) {
        if (form === 0) parentPort.postMessage({ files });
        else {
          const buffers = packVectors(files);
          parentPort.postMessage({ files }, form === 2 ? buffers : []);
        }
      }
      const spent = process.threadCpuUsage(cpu);
      parentPort.postMessage({ done: true, workerCpuMs: (spent.user + spent.system) / 1000 });
    });
  })();`;

const worker = new Worker(workerSource, {
  eval: true,
  workerData: {
    tree,
    files: Number(values.files),
    modules: {
      config: modules("config/load-config.js"),
      scanner: modules("indexer/scanner.js"),
      batch: modules("indexer/file-batch.js"),
    },
  },
});
const messages = [];
let wake;
worker.on("message", (message) => {
  messages.push(message);
  wake?.();
});
async function next(predicate) {
  for (;;) {
    const index = messages.findIndex(predicate);
    if (index >= 0) return messages.splice(index, 1)[0];
    await new Promise((done) => {
      wake = done;
    });
  }
}

const ready = await next((message) => message.ready);
const results = FORMS.map(() => ({ mainCpuMs: [], workerCpuMs: [] }));
for (let round = 0; round < Number(values.rounds); round++) {
  for (const form of inTurn([0, 1, 2], round)) {
    messages.length = 0;
    let vectorsSeen = 0;
    const cpu = process.threadCpuUsage();
    worker.postMessage({ form });
    const done = await next((message) => message.done);
    // Every answer arrived before "done" (one port, in order): touch each vector, as the writer would.
    for (const { files } of messages)
      for (const file of files) for (const chunk of file.chunks) if (chunk.vector) vectorsSeen += chunk.vector[0] === undefined ? 0 : 1;
    const spent = process.threadCpuUsage(cpu);
    results[form].mainCpuMs.push((spent.user + spent.system) / 1000);
    results[form].workerCpuMs.push(done.workerCpuMs);
    if (vectorsSeen === 0) throw new Error("no vectors received");
  }
}
await worker.terminate();
const summary = FORMS.map((form, index) => ({
  form,
  mainCpuMs: results[index].mainCpuMs.map(Math.round),
  workerCpuMs: results[index].workerCpuMs.map(Math.round),
  medianMainCpuMs: Math.round(median(results[index].mainCpuMs)),
  medianWorkerCpuMs: Math.round(median(results[index].workerCpuMs)),
}));
if (values.json) console.log(JSON.stringify({ tasks: ready.tasks, chunks: ready.chunks, summary }, null, 2));
else {
  console.log(`${ready.tasks} tasks, ${ready.chunks} chunks`);
  for (const row of summary)
    console.log(
      `${row.form}: main thread ${row.medianMainCpuMs} ms (${row.mainCpuMs.join(", ")}), worker ${row.medianWorkerCpuMs} ms (${row.workerCpuMs.join(", ")})`,
    );
}
