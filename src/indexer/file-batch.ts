import type { ChunkFeaturizer } from "./chunk-featurizer.js";
import { failedFile, featurizerFor, fileTaskSchema, processFile, type ProcessedFile } from "./file-processor.js";
import { TreeSitterExtractor } from "../parsing/tree-sitter-extractor.js";
import { errorMessage } from "../errors.js";
import { waitWhilePaused } from "./index-pause.js";

/**
 * Processes batches of files with one tree-sitter extractor and one chunk
 * featurizer, kept across batches (grammars load lazily). The file workers
 * run one each; the main thread runs one for a handful of files, where
 * starting the workers would cost more than the work.
 */
export class FileBatchProcessor {
  private readonly extractor = new TreeSitterExtractor();
  private featurizer: ChunkFeaturizer | undefined;

  async process(input: unknown): Promise<ProcessedFile[]> {
    const task = fileTaskSchema.parse(input);
    if (this.featurizer === undefined || (this.featurizer.features?.dimensions ?? null) !== task.embeddingDimensions) {
      this.featurizer = featurizerFor(task);
    }
    const results: ProcessedFile[] = [];
    for (const file of task.files) {
      waitWhilePaused(task.pause);
      try {
        results.push(await processFile(task, file, this.extractor, this.featurizer));
      } catch (error) {
        // A file must never fail the batch: report it and go on.
        results.push(failedFile(file, `worker error: ${errorMessage(error)}`));
      }
    }
    return results;
  }
}
