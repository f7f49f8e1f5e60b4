import type { IndexProgress } from "../indexer/project-indexer.js";
import { formatCount, progressBar } from "./numbers.js";

/** What one line of progress says: `[████████░░] 80% - Indexed 1,234 / 1,542 files (412 files/s)`. */
export function describeProgress(progress: IndexProgress): string {
  switch (progress.phase) {
    case "scanning":
      return "Scanning project…";
    case "saving":
      return `Saving index… (${formatCount(progress.indexed)} files indexed)`;
    case "complete":
    case "indexing": {
      const rate = progress.elapsedMs > 0 ? (progress.indexed * 1000) / progress.elapsedMs : 0;
      const failed = progress.failed > 0 ? `, ${formatCount(progress.failed)} failed` : "";
      return `${progressBar(progress.indexed, progress.total)} - Indexed ${formatCount(progress.indexed)} / ${formatCount(progress.total)} files (${formatCount(rate)} files/s${failed})`;
    }
  }
}
