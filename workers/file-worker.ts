/**
 * Piscina worker entry: processes a batch of files off the main thread and
 * returns plain data. The main thread owns SQLite and the full-text index.
 * One tree-sitter extractor lives per worker thread; grammars load lazily.
 */
import { failedFile, fileTaskSchema, processFile, type ProcessedFile } from "../src/indexer/file-processor.js";
import { TrigramFeatures } from "../src/embedding/hashing-embedder.js";
import { TreeSitterExtractor } from "../src/parsing/tree-sitter-extractor.js";

const extractor = new TreeSitterExtractor();
let features: TrigramFeatures | undefined;

export default async function processBatch(input: unknown): Promise<ProcessedFile[]> {
  const task = fileTaskSchema.parse(input);
  if (task.embeddingDimensions !== null && features?.dimensions !== task.embeddingDimensions) {
    features = new TrigramFeatures(task.embeddingDimensions);
  }
  const results: ProcessedFile[] = [];
  for (const file of task.files) {
    try {
      results.push(await processFile(task, file, extractor, features));
    } catch (error) {
      // A file must never fail the batch: report it and go on.
      results.push(failedFile(file, `worker error: ${(error as Error).message}`));
    }
  }
  return results;
}
