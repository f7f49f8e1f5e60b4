import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { GrepIndex, IndexedFiles } from "../agent/tools/grep-files.js";
import type { FileVersion } from "../agent/tools/grep-matcher.js";
import type { IndexConfig } from "../config/schema.js";
import type { ProjectIndexer } from "../indexer/project-indexer.js";
import { classifyPaths } from "../indexer/path-classification.js";
import { listSubtree } from "../indexer/subtree-freshness.js";
import type { WatchedChanges } from "../indexer/watched-changes.js";
import { guaranteedTerms } from "../search/literal-terms.js";
import type { PersistentFullText } from "../search/persistent-full-text.js";
import { isSecretPath } from "../security/secrets.js";
import type { FileRepository, ManifestEntry } from "../store/file-repository.js";
import type { FileSketches } from "../store/file-sketches.js";
import { ChunkFiles } from "./chunk-files.js";
import type { FirstWalkListing } from "./grep-first-walk.js";
import { probeOf } from "./grep-sketch-probe.js";
import { KeptDirectoryStates, KeptManifest, KeptSketches } from "./kept-manifest.js";

export interface GrepIndexDeps {
  root: string;
  config: IndexConfig;
  indexer: Pick<ProjectIndexer, "checkFreshness" | "lastRefresh" | "storedDirectoryStates">;
  files: Pick<FileRepository, "manifestUnder" | "manifestVersion" | "fileIdsOf" | "allChunkFileIds">;
  fullText: Pick<PersistentFullText, "documentsHolding">;
  /** The indexed files' trigram sketches: which files may hold a literal, without reading them. */
  sketches: Pick<FileSketches, "under">;
  /** See `snapshotHolds`. */
  racyWindowMs: number;
  /** While a project watcher vouches for the tree: the files it saw change since the index read them. */
  changes?: Pick<WatchedChanges, "changes">;
  /** Until a first run completes: the tree as that run's walk listed it, and the files it has committed. */
  firstWalk?: Pick<FirstWalkListing, "files">;
}

/** The index's parts, with the chunk → file map kept for the narrowing and the manifest's rows and sketches kept between searches. */
type IndexAndChunks = GrepIndexDeps & {
  chunkFiles: ChunkFiles;
  manifest: KeptManifest;
  keptSketches: KeptSketches;
  keptStates: KeptDirectoryStates;
  /** What a listing by name makes of the manifest's rows, once per array of rows the kept manifest returns (per version). */
  listings: WeakMap<readonly ManifestEntry[], RowsListing>;
};

/**
 * grep's view of the project index: the files on disk as the manifest and
 * the watcher's reports give them while the watcher vouches for the tree,
 * else as a fresh check finds them (the manifest, with what changed on disk
 * since folded in); and which of them
 * the full-text index rules out for a pattern's literals (without a
 * watcher, a caller with a faster way to list the files than the fresh check
 * asks for no check of the disk). Until a first
 * complete run has stored the directories' states, a fresh check would walk
 * the whole tree here, on the thread that commits the index: the tree is
 * listed as that run's own walk saw it (`FirstWalkListing`), else by
 * ripgrep or a walk on grep's thread.
 */
export function createGrepIndex(deps: GrepIndexDeps): GrepIndex {
  const index: IndexAndChunks = {
    ...deps,
    chunkFiles: new ChunkFiles(deps.files),
    manifest: new KeptManifest(deps.files),
    keptSketches: new KeptSketches(deps.sketches, deps.files),
    keptStates: new KeptDirectoryStates(deps.indexer, deps.files),
    listings: new WeakMap(),
  };
  return {
    async files(signal, under, options) {
      if (deps.indexer.lastRefresh() === undefined) return deps.firstWalk?.files(under ?? "");
      const changed = await deps.changes?.changes(signal);
      if (signal.aborted) return undefined;
      if (changed) return watchedFiles(index, changed, under ?? "");
      // Without a watcher: listed by the stored directory states, no stat of each file on this thread.
      const listed = listedByName(index, under ?? "");
      if (listed || options?.checkDisk === false) return listed;
      const report = await deps.indexer.checkFreshness();
      if (report.state === "missing" || signal.aborted) return undefined;
      const { diff } = report;
      const onDisk = new Set([...diff.added, ...diff.changed].map((file) => file.path));
      const gone = new Set([...diff.deleted, ...diff.newlySkipped.map((file) => file.path)]);
      const vouched = new Map<number, string>();
      const paths: string[] = [...diff.added.map((file) => file.path)];
      for (const entry of index.manifest.under("")) {
        if (gone.has(entry.path)) continue;
        if (onDisk.has(entry.path)) paths.push(entry.path);
        else addRow(deps, entry, paths, vouched);
      }
      return indexedFiles(index, paths, vouched, "");
    },
  };
}

/** A manifest row as it stands on disk: skipped rows the walk takes as files (binary ones) are read; those it leaves out (secret names, too large) are not. */
function addRow(deps: GrepIndexDeps, entry: ManifestEntry, paths: string[], vouched: Map<number, string>): void {
  if (!takenByWalk(deps, entry)) return;
  paths.push(entry.path);
  if (entry.status === "indexed") vouched.set(entry.id, entry.path);
}

/** Whether the walk takes the file of a manifest row as it was: all but skipped rows with a secret's name or too large. */
function takenByWalk(deps: GrepIndexDeps, entry: ManifestEntry): boolean {
  return entry.status !== "skipped" || !(isSecretPath(entry.path) || entry.size > deps.config.maxFileSize);
}

/**
 * The files under a directory ('' for all) while the project watcher vouches
 * for the tree: the manifest's rows there as they stand, except the files
 * the watcher saw change since they were indexed, which are judged by the
 * walk's rules as they are on disk now and read. No `stat` of the rest.
 */
function watchedFiles(deps: IndexAndChunks, changed: ReadonlySet<string>, under: string): IndexedFiles {
  const paths: string[] = [];
  const vouched = new Map<number, string>();
  for (const entry of deps.manifest.under(under)) if (!changed.has(entry.path)) addRow(deps, entry, paths, vouched);
  const prefix = under ? `${under}/` : "";
  const onDisk = classifyPaths(
    deps.root,
    deps.config,
    [...changed].filter((path) => path.startsWith(prefix)),
  );
  // Skipped ones are secret names or too large: the walk leaves those out of what grep reads.
  for (const file of onDisk.files) paths.push(file.path);
  return indexedFiles(deps, paths, vouched, under);
}

/**
 * The files under a directory ('' for all) when no entry was added, removed
 * or renamed anywhere there since the last complete run, and no ignore file
 * changed (`listSubtree`: a `stat` of each directory and ignore file, none
 * of the other files): the manifest's rows there. Whether one changed in
 * place is not known here, so an indexed file is vouched for only while it
 * has the size and time the index read it at (`unlessChanged`): one the
 * sketches or terms rule out is passed over by grep's threads after an
 * `lstat` of it there, spread over the threads, and read if it changed. The
 * fresh check, which stats every file on this thread first, cost about what
 * rg's whole run does. Undefined when the listing cannot be trusted.
 */
function listedByName(deps: IndexAndChunks, under: string): IndexedFiles | undefined {
  const states = deps.keptStates.under("");
  const listed = states && listSubtree(deps.root, deps.config, under, states, deps.racyWindowMs);
  if (!listed) return undefined;
  if (listed.state === "left-out") return indexedFiles(deps, [], new Map(), under);
  const rows = deps.manifest.under(under);
  // The last run's names and rows disagree: the whole check decides.
  if (rows.length !== listed.files) return undefined;
  const { paths, vouched, unlessChanged, tooLarge } = rowsListing(deps, rows);
  const listedPaths = [...paths];
  for (const entry of tooLarge) {
    // Too large when indexed: the walk takes it again if it shrank since.
    const stats = lstatSync(join(deps.root, entry.path), { throwIfNoEntry: false });
    if (stats?.isFile() && stats.size <= deps.config.maxFileSize && !isSecretPath(entry.path)) listedPaths.push(entry.path);
  }
  return { ...indexedFiles(deps, listedPaths, vouched, under), unlessChanged };
}

interface RowsListing {
  paths: readonly string[];
  vouched: ReadonlyMap<number, string>;
  unlessChanged: ReadonlyMap<string, FileVersion>;
  /** Rows skipped as too large: on disk, one may have shrunk since. */
  tooLarge: readonly ManifestEntry[];
}

function rowsListing(deps: IndexAndChunks, rows: readonly ManifestEntry[]): RowsListing {
  const known = deps.listings.get(rows);
  if (known) return known;
  const paths: string[] = [];
  const vouched = new Map<number, string>();
  const unlessChanged = new Map<string, FileVersion>();
  const tooLarge: ManifestEntry[] = [];
  for (const entry of rows) {
    if (entry.status === "skipped" && entry.size > deps.config.maxFileSize) tooLarge.push(entry);
    else {
      addRow(deps, entry, paths, vouched);
      if (entry.status === "indexed") unlessChanged.set(entry.path, entry);
    }
  }
  const listing = { paths, vouched, unlessChanged, tooLarge };
  deps.listings.set(rows, listing);
  return listing;
}

/** The full-text terms every file holding a line with these literal runs is indexed under (`guaranteedTerms`). */
function termsOf(runs: readonly string[], ignoreCase: boolean): string[] {
  return [...new Set(runs.flatMap((run) => guaranteedTerms(run, ignoreCase)))];
}

/**
 * Chunks past which a term is left out of the narrowing: a term most files
 * hold (`js` in a JavaScript toolchain) rules out few of them, and mapping
 * its chunks to files cost more than reading those few.
 */
const MAX_TERM_CHUNKS = 12_000;

/**
 * The listed files, and which of them may hold a match: every file not
 * vouched for (changed since it was indexed, or not indexed), and each
 * vouched one that neither its sketch nor its terms rule out. Where every
 * vouched file has a sketch, the terms are not consulted (the sketch rules
 * out more, and reading a term's postings costs more than the lookups).
 */
function indexedFiles(deps: IndexAndChunks, paths: string[], vouched: ReadonlyMap<number, string>, under: string): IndexedFiles {
  return {
    paths,
    mayHold(alternatives, ignoreCase) {
      const bySketch = vouched.size > 0 ? ruledOutBySketch(deps, vouched, under, alternatives, ignoreCase) : undefined;
      const byTerms = bySketch?.unsketched === 0 ? undefined : termHolders(deps, vouched, alternatives, ignoreCase);
      if (!bySketch && !byTerms) return undefined;
      const vouchedPaths = byTerms ? new Set(vouched.values()) : undefined;
      // Only vouched files are ruled out, by their sketch or (where terms narrow) by lacking a term.
      return new Set(paths.filter((path) => !bySketch?.ruledOut.has(path) && (!vouchedPaths?.has(path) || byTerms?.has(path))));
    },
  };
}

/** The vouched files whose sketch rules out every alternative, and how many vouched files have none (indexed before sketches). */
function ruledOutBySketch(
  deps: IndexAndChunks,
  vouched: ReadonlyMap<number, string>,
  under: string,
  alternatives: ReadonlyArray<readonly string[]>,
  ignoreCase: boolean,
): { ruledOut: Set<string>; unsketched: number } | undefined {
  const probe = probeOf(alternatives, ignoreCase);
  if (!probe) return undefined;
  const sketches = deps.keptSketches.under(under);
  const ruledOut = new Set<string>();
  let unsketched = 0;
  for (const [fileId, path] of vouched) {
    const sketch = sketches.get(fileId);
    if (!sketch) unsketched++;
    else if (!probe.mayHold(sketch)) ruledOut.add(path);
  }
  return { ruledOut, unsketched };
}

/** The vouched files indexed under every term some alternative guarantees; undefined when an alternative guarantees none. */
function termHolders(
  deps: IndexAndChunks,
  vouched: ReadonlyMap<number, string>,
  alternatives: ReadonlyArray<readonly string[]>,
  ignoreCase: boolean,
): Set<string> | undefined {
  const holders = new Set<string>();
  for (const runs of alternatives) {
    let holding: Set<string> | undefined;
    for (const term of termsOf(runs, ignoreCase)) {
      const found = filesHolding(deps, term, vouched);
      if (found) holding = holding ? new Set([...holding].filter((path) => found.has(path))) : found;
    }
    if (!holding) return undefined;
    for (const path of holding) holders.add(path);
  }
  return holders;
}

/** The vouched files some chunk of which is indexed under the term; undefined when too many chunks are (see `MAX_TERM_CHUNKS`). */
function filesHolding(deps: IndexAndChunks, term: string, vouched: ReadonlyMap<number, string>): Set<string> | undefined {
  const chunks = deps.fullText.documentsHolding(term, MAX_TERM_CHUNKS);
  if (!chunks) return undefined;
  const found = new Set<string>();
  for (const fileId of deps.chunkFiles.filesOf(chunks)) {
    const path = vouched.get(fileId);
    if (path !== undefined) found.add(path);
  }
  return found;
}
