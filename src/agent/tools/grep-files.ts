import { stat } from "node:fs/promises";
import { basename, join, sep } from "node:path";
import picomatch from "picomatch";
import type { IndexConfig } from "../../config/schema.js";
import { fileKind } from "../../files/regular-file.js";
import { PathClassifier } from "../../indexer/path-classification.js";
import { literalRunsPerAlternative } from "./grep-literals.js";
import { type FileVersion, type GrepSearch, prefilterLiterals, unlessChangedOf } from "./grep-matcher.js";
import type { Ripgrep } from "./grep-ripgrep.js";
import type { GrepThread } from "./grep-thread.js";
import { outsideHiddenDirectories, resolveProjectPath } from "./project-paths-guard.js";
import { ToolError, type ToolContext } from "./tool.js";
import { unlessAborted } from "../../abort-signal.js";

/**
 * The project's files as its index knows them, checked against the disk at
 * the call: what lets grep skip the walk, and the files whose indexed text
 * rules out the pattern's literals.
 */
export interface GrepIndex {
  /**
   * Undefined when the index cannot list the project (none yet, or its first
   * run not finished): grep walks it instead. `under` (a directory relative to
   * the root) says only the files below it are wanted: others may be left out.
   * `checkDisk: false`: undefined too where only a check of the files on disk
   * (a fresh check, without a watcher to vouch for the tree) could list them.
   */
  files(signal: AbortSignal, under?: string, options?: { checkDisk?: boolean }): Promise<IndexedFiles | undefined>;
}

export interface IndexedFiles {
  /** The files the indexer would read, relative to the root, '/'-separated. */
  paths: readonly string[];
  /**
   * Of `paths`, those that may hold a match of one of the alternatives (each
   * the literal runs a line matching it holds): every file the index does not
   * hold as it is on disk, and those whose indexed text has each term the
   * runs guarantee. Undefined when some alternative guarantees no term.
   */
  mayHold(alternatives: ReadonlyArray<readonly string[]>, ignoreCase: boolean): MayHold | undefined;
  /**
   * Files vouched for only while unchanged (listed by name, without a `stat`
   * of each), with the size and time the index read them at: one `mayHold`
   * leaves out is still searched, passed over if it has them (`GrepSearch.unlessChanged`).
   */
  unlessChanged?: ReadonlyMap<string, FileVersion>;
}

/** The files that may hold a match, asked one path at a time (a `Set`, or a test made per path where most files may). */
export interface MayHold {
  has(path: string): boolean;
}

export interface Candidate {
  /** Relative to the root (absolute outside it): how the file is named in the answer. */
  shown: string;
  absolute: string;
  /** Relative to the searched directory, for the glob. */
  within: string;
  /** The file the call named: searched whatever its size (a listed file larger than the index reads is not). */
  named?: true;
  /** The index rules it out if it still has this size and time (see `IndexedFiles.unlessChanged`). */
  unlessChanged?: FileVersion;
}

/** A search's pattern and limits, without its files. */
export type SearchOfFiles = Omit<GrepSearch, "files" | "firstFile" | "unlessChanged">;

/** The search of these files: their paths, and the size and time of those the index rules out while unchanged. */
export function searchOfCandidates(search: SearchOfFiles, files: readonly Candidate[]): GrepSearch {
  const unlessChanged = unlessChangedOf(files.map((file) => file.unlessChanged));
  return { ...search, files: files.map((file) => file.absolute), ...(unlessChanged ? { unlessChanged } : {}) };
}

export interface GrepFilesRequest {
  path: string | undefined;
  glob: string | undefined;
  pattern: string;
  ignoreCase: boolean;
}

export interface GrepFilesDeps {
  thread: GrepThread;
  config: IndexConfig;
  index?: GrepIndex;
  /** Lists the files that may match where the index cannot without checking the disk. */
  ripgrep?: Ripgrep;
  /**
   * Given, while ripgrep still reads the tree, the files it has named so far
   * (judged as the list is), to match them meanwhile: the list returned is
   * the one to trust.
   */
  onFound?: (files: Candidate[]) => void;
}

/**
 * The files a search reads, in the order their matches are listed: the files
 * the indexer would read under the path, narrowed by the glob and to those
 * that may hold the pattern's literals; or just the file when a file is
 * named. Listed by the index where it can vouch for the tree without
 * checking the disk (a watcher holds), or, for the whole tree, where the
 * stored directory states still list it by name (a `stat` of each
 * directory, and of each file the index then rules out) or after a fresh
 * check; else by ripgrep when it is there and the pattern has literals
 * (one directory without a watcher, a first index running), else by the
 * index listing or checking that directory, else walked on a grep thread
 * (never on this one:
 * while a first index is built this thread commits it). Undefined when
 * cancelled.
 */
export async function grepFiles(context: ToolContext, request: GrepFilesRequest, deps: GrepFilesDeps): Promise<Candidate[] | undefined> {
  const resolved = resolveProjectPath(context.root, request.path ?? ".", context.extraDirectories);
  const stats = await stat(resolved.absolute).catch(() => {
    throw new ToolError(`Not found: ${request.path}. Call grep without a path to search the whole project.`);
  });
  if (stats.isFile()) {
    return [{ shown: resolved.relative ?? resolved.absolute, absolute: resolved.real, within: basename(resolved.absolute), named: true }];
  }
  if (!stats.isDirectory())
    throw new ToolError(`${request.path} is ${fileKind(stats)}, not a file or directory; grep reads only regular files.`);
  const inRoot = resolved.relative !== undefined;
  const scanRoot = inRoot ? context.root : resolved.absolute;
  const prefix = resolved.relative ? `${resolved.relative}/` : "";
  const globMatches = request.glob ? picomatch(request.glob, { dot: true, basename: !request.glob.includes("/") }) : undefined;
  // A listed path is relative and '/'-separated: on POSIX the absolute path is the root and it joined, without
  // `join`'s normalising, which was a share of a search listing thousands of files.
  const rootPrefix = scanRoot.endsWith(sep) ? scanRoot : `${scanRoot}${sep}`;
  const absoluteOf = sep === "/" ? (path: string) => rootPrefix + path : (path: string) => join(scanRoot, path);
  // One object per listed file, made in one pass: a first index's listing is every file of the tree (27k on biome).
  const candidates = ({ paths, narrowed, unlessChanged }: ListedFiles): Candidate[] => {
    // `path` (relative to the scanned root) is what the hidden directories are judged by.
    const kept: Array<Candidate & { path: string }> = [];
    for (const path of paths) {
      if (!path.startsWith(prefix)) continue;
      const ruledOut = narrowed && !narrowed.has(path) ? (unlessChanged?.get(path) ?? null) : undefined;
      // Ruled out, and vouched for as it is on disk (no size and time to check it by): not read at all.
      if (ruledOut === null) continue;
      const within = prefix === "" ? path : path.slice(prefix.length);
      if (globMatches && !globMatches(within)) continue;
      const absolute = absoluteOf(path);
      const candidate: Candidate & { path: string } = { shown: inRoot ? path : absolute, absolute, within, path };
      if (ruledOut) candidate.unlessChanged = ruledOut;
      kept.push(candidate);
    }
    return outsideHiddenDirectories(kept, scanRoot, context.hiddenDirectories);
  };
  const onFound = deps.onFound;
  const found = onFound && ((paths: readonly string[]) => onFound(candidates({ paths })));
  const listed = await listedFiles(context, request, deps, { inRoot, scanRoot, under: resolved.relative ?? "" }, found);
  if (!listed || context.signal.aborted) return undefined;
  return candidates(listed).sort((a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
}

interface ListedFiles {
  /** Relative to the scanned root, '/'-separated: every file below the searched directory, or more. */
  paths: readonly string[];
  /** Of `paths`, those that may hold a match; undefined when all may. */
  narrowed?: MayHold | undefined;
  /** Of `paths`, those ruled out only while unchanged (`IndexedFiles.unlessChanged`). */
  unlessChanged?: ReadonlyMap<string, FileVersion> | undefined;
}

interface SearchedTree {
  inRoot: boolean;
  scanRoot: string;
  /** The searched directory relative to the scanned root ('' for all of it). */
  under: string;
}

async function listedFiles(
  context: ToolContext,
  request: GrepFilesRequest,
  deps: GrepFilesDeps,
  tree: SearchedTree,
  found?: (paths: readonly string[]) => void,
): Promise<ListedFiles | undefined> {
  const { signal } = context;
  const literals = deps.ripgrep ? prefilterLiterals(request.pattern, request.ignoreCase) : undefined;
  const alternatives = literalRunsPerAlternative(request.pattern) ?? [[]];
  // Esc stops the call at once, even while the index is still checking what it may vouch for.
  const fromIndex = (checkDisk: boolean) =>
    tree.inRoot && deps.index ? unlessAborted(deps.index.files(signal, tree.under || undefined, { checkDisk }), signal) : undefined;
  // The whole tree is listed or checked faster than rg reads it (a stat per directory or file, then only the files the
  // full-text index cannot rule out are read); in one directory the stored states' fixed cost is not repaid, and rg is faster.
  let indexed = await fromIndex(!literals || tree.under === "");
  if (signal.aborted) return undefined;
  if (!indexed && deps.ripgrep && literals) {
    // ripgrep names a superset of what the walk takes: each is judged by the index's rules.
    const classifier = new PathClassifier(tree.scanRoot, deps.config);
    const judged = (paths: readonly string[]) => classifier.classify(paths).files.map((file) => file.path);
    // Names given as rg writes them are judged then, once; the list it ends with is the one to trust.
    const given = new Set<string>();
    const judgedAsGiven: string[] = [];
    const holding = await deps.ripgrep.filesHolding(
      { root: tree.scanRoot, under: tree.under, literals, ignoreCase: request.ignoreCase, config: deps.config },
      signal,
      found &&
        ((names) => {
          for (const name of names) given.add(name);
          const paths = judged(names);
          judgedAsGiven.push(...paths);
          found(paths);
        }),
    );
    if (signal.aborted) return undefined;
    if (holding) return { paths: [...judgedAsGiven, ...judged(holding.filter((name) => !given.has(name)))] };
    indexed = await fromIndex(true);
    if (signal.aborted) return undefined;
  }
  if (indexed)
    return { paths: indexed.paths, narrowed: indexed.mayHold(alternatives, request.ignoreCase), unlessChanged: indexed.unlessChanged };
  const walked = await deps.thread.list(tree.scanRoot, deps.config, signal);
  return walked && { paths: walked };
}
