// Types of scripts/lib/source-structure.mjs (plain JS, run by node without a build), for the tests that import it.

export interface Layer {
  name: string;
  folders: string[];
}

export const LAYERS: Layer[];
export const FILE_LINE_LIMIT: number;
export const FUNCTION_LINE_LIMIT: number;

export interface ImportEdge {
  /** The importing file, relative to the source root (`tui/app.tsx`). */
  from: string;
  /** A file of the tree for a relative import (`cli/format.ts`), else the package (`ink`, `node:fs`, `@scope/name`). */
  to: string;
  internal: boolean;
  /** Erased when compiled: `import type`, `export type`, an `import("…")` type. */
  typeOnly: boolean;
  line: number;
}

export interface ImportCycle {
  files: string[];
  /** One shortest cycle through the first file, that file at both ends. */
  path: string[];
}

export interface LayerViolation {
  from: string;
  to: string;
  line: number;
  typeOnly: boolean;
  fromLayer: string;
  toLayer: string;
}

export interface StructureMeasurement {
  files: number;
  lines: number;
  imports: number;
  runTimeCycles: ImportCycle[];
  cyclesWithTypes: ImportCycle[];
  layerViolations: LayerViolation[];
  foldersWithoutLayer: string[];
  longFiles: Array<{ file: string; lines: number }>;
  longFunctions: Array<{ file: string; name: string; line: number; lines: number }>;
}

export function sourceFilesUnder(directory: string): string[];
export function folderOf(file: string): string;
export function layerOf(folder: string): number | undefined;
export function layerOfFile(file: string): number | undefined;
export function readImports(root: string): { files: string[]; edges: ImportEdge[] };
export function importCycles(files: readonly string[], edges: readonly ImportEdge[]): ImportCycle[];
export function layerViolations(edges: readonly ImportEdge[]): LayerViolation[];
export function foldersWithoutLayer(files: readonly string[]): string[];
export function lineCount(text: string): number;
export function measureStructure(root: string): StructureMeasurement;
export function isDirectory(path: string): boolean;
