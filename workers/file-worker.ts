/**
 * Piscina worker entry: processes a batch of files off the main thread and
 * returns plain data. The main thread owns SQLite and the full-text index.
 */
import { FileBatchProcessor } from "../src/indexer/file-batch.js";
import type { ProcessedFile } from "../src/indexer/file-processor.js";
import { lowerThisThreadsPriority } from "../src/indexer/worker-priority.js";

// Below the main thread, which hands out the tasks (docs/DESIGN-NOTES.md, "The file workers give way…").
lowerThisThreadsPriority();

const processor = new FileBatchProcessor();

export default function processBatch(input: unknown): Promise<ProcessedFile[]> {
  return processor.process(input);
}
