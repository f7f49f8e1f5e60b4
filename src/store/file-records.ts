/** The code index's rows as its repository takes and gives them: the manifest, chunks and symbols. */

export type FileStatus = "indexed" | "skipped" | "failed";

/** What the manifest remembers of a file, enough to tell whether it changed. */
export interface ManifestEntry {
  id: number;
  path: string;
  size: number;
  mtimeMs: number;
  contentHash: string | null;
  status: FileStatus;
}

export interface FileRecord {
  path: string;
  size: number;
  mtimeMs: number;
  contentHash: string | null;
  language: string | null;
  status: FileStatus;
  reason: string | null;
  lineCount: number;
  description: string | null;
  priority: number;
}

export interface ChunkRecord {
  ordinal: number;
  startLine: number;
  endLine: number;
  kind: string;
  symbols: string[];
  content: string;
  tokenCount: number;
  /** Distinct full-text terms, space-separated. */
  terms: string;
  /** Number of terms with repeats: the document length for BM25. */
  termCount: number;
}

export interface SymbolRecord {
  name: string;
  kind: string;
  startLine: number;
  endLine: number;
}

export interface StoredChunk {
  id: number;
  fileId: number;
  path: string;
  language: string | null;
  startLine: number;
  endLine: number;
  kind: string;
  symbols: string[];
  content: string;
  tokenCount: number;
  fileLineCount: number;
  /** One line from the file's first comment, when it has one. */
  fileDescription: string | null;
}

/** A definition in the code index and where it is (lines 1-based, inclusive). */
export interface IndexedSymbol {
  name: string;
  kind: string;
  path: string;
  startLine: number;
  endLine: number;
}
