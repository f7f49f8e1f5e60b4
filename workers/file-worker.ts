/**
 * Piscina worker entry: processes a batch of files off the main thread and
 * returns plain data. The main thread owns SQLite and the full-text index.
 */
import { FileBatchProcessor } from "../src/indexer/file-batch.js";
import type { ProcessedFile } from "../src/indexer/file-processor.js";

const processor = new FileBatchProcessor();

export default function processBatch(input: unknown): Promise<ProcessedFile[]> {
  return processor.process(input);
}
