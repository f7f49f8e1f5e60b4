/**
 * Piscina worker entry: processes a batch of files off the main thread and
 * returns plain data. The main thread owns SQLite and the full-text index.
 * One tree-sitter extractor and one chunk featurizer live per worker thread;
 * grammars load lazily.
 */
import type { ChunkFeaturizer } from "../src/indexer/chunk-featurizer.js";
import { failedFile, featurizerFor, fileTaskSchema, processFile, type ProcessedFile } from "../src/indexer/file-processor.js";
import { TreeSitterExtractor } from "../src/parsing/tree-sitter-extractor.js";

const extractor = new TreeSitterExtractor();
let featurizer: ChunkFeaturizer | undefined;

export default async function processBatch(input: unknown): Promise<ProcessedFile[]> {
  const task = fileTaskSchema.parse(input);
  if (featurizer === undefined || (featurizer.features?.dimensions ?? null) !== task.embeddingDimensions) {
    featurizer = featurizerFor(task);
  }
  const results: ProcessedFile[] = [];
  for (const file of task.files) {
    try {
      results.push(await processFile(task, file, extractor, featurizer));
    } catch (error) {
      // A file must never fail the batch: report it and go on.
      results.push(failedFile(file, `worker error: ${(error as Error).message}`));
    }
  }
  return results;
}
