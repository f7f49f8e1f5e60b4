import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { GrepIndex, IndexedFiles, Narrowing } from "../agent/tools/grep-files.js";
import type { IndexConfig } from "../config/schema.js";
import type { ProjectIndexer } from "../indexer/project-indexer.js";
import { classifyPaths } from "../indexer/path-classification.js";
import { checkSubtree, listSubtree } from "../indexer/subtree-freshness.js";
import type { WatchedChanges } from "../indexer/watched-changes.js";
import { guaranteedTerms } from "../search/literal-terms.js";
import type { PersistentFullText } from "../search/persistent-full-text.js";
import { isSecretPath } from "../security/secrets.js";
import type { FileRepository, ManifestEntry } from "../store/file-repository.js";
import { ChunkFiles } from "./chunk-files.js";
import { KeptManifest } from "./kept-manifest.js";

export interface GrepIndexDeps {
  root: string;
  config: IndexConfig;
  indexer: Pick<ProjectIndexer, "checkFreshness" | "lastRefresh" | "storedDirectoryStates">;
  files: Pick<FileRepository, "manifestUnder" | "manifestVersion" | "fileIdsOf" | "allChunkFileIds">;
  fullText: Pick<PersistentFullText, "documentsHolding">;
  /** See `snapshotHolds`. */
  racyWindowMs: number;
  /** While a project watcher vouches for the tree: the files it saw change since the index read them. */
  changes?: Pick<WatchedChanges, "changes">;
}

/** The index's parts, with the chunk → file map kept for the narrowing and the manifest's rows kept between searches. */
type IndexAndChunks = GrepIndexDeps & { chunkFiles: ChunkFiles; manifest: KeptManifest };

/**
 * grep's view of the project index: the files on disk as the manifest and
 * the watcher's reports give them while the watcher vouches for the tree,
 * else as a fresh check finds them (the manifest, with what changed on disk
 * since folded in); and which of them
 * the full-text index rules out for a pattern's literals (without a
 * watcher, a caller with a faster way to list the files than the fresh check
 * asks for no check of the disk). Until a first
 * complete run has stored the directories' states, a fresh check would walk
 * the whole tree here, on the thread that commits the index: grep walks on
 * its own thread instead.
 */
export function createGrepIndex(deps: GrepIndexDeps): GrepIndex {
  const index: IndexAndChunks = { ...deps, chunkFiles: new ChunkFiles(deps.files), manifest: new KeptManifest(deps.files) };
  return {
    async files(signal, under, options) {
      if (deps.indexer.lastRefresh() === undefined) return undefined;
      const changed = await deps.changes?.changes(signal);
      if (signal.aborted) return undefined;
      if (changed) return watchedFiles(index, changed, under ?? "");
      if (options?.checkDisk === false) return undefined;
      // A pattern the index cannot narrow reads every file: its listing needs no stat of each.
      const listed = options?.narrowing && !narrows(options.narrowing) ? listedByName(index, under ?? "") : undefined;
      if (listed) return listed;
      const part = under ? subtreeFiles(index, under) : undefined;
      if (part) return part;
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
      return indexedFiles(index, paths, vouched);
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
  return indexedFiles(deps, paths, vouched);
}

/**
 * The files under a directory ('' for all) when no entry was added, removed
 * or renamed anywhere there since the last complete run, and no ignore file
 * changed (`listSubtree`: a `stat` of each directory and ignore file, none
 * of the other files): the manifest's rows of those names, none of them
 * vouched for (whether one changed in place is not known), so every one is
 * read. For a search the index cannot narrow (`deprecated` in any case: no
 * term is certain), which reads every file anyway: no fresh check first,
 * which had cost it as much as rg's whole run. Undefined when the listing
 * cannot be trusted: the fresh check decides.
 */
function listedByName(deps: IndexAndChunks, under: string): IndexedFiles | undefined {
  const states = deps.indexer.storedDirectoryStates();
  const listed = states && listSubtree(deps.root, deps.config, under, states, deps.racyWindowMs);
  if (!listed) return undefined;
  if (listed.state === "left-out") return indexedFiles(deps, [], new Map());
  const rows = new Map(deps.manifest.under(under).map((entry) => [entry.path, entry]));
  const paths: string[] = [];
  for (const path of listed.paths) {
    const entry = rows.get(path);
    // A name the last run kept no row for: the listing and the manifest disagree, and the whole check decides.
    if (!entry) return undefined;
    if (entry.status === "skipped" && entry.size > deps.config.maxFileSize) {
      // Too large when indexed: the walk takes it again if it shrank since.
      const stats = lstatSync(join(deps.root, path), { throwIfNoEntry: false });
      if (stats?.isFile() && stats.size <= deps.config.maxFileSize && !isSecretPath(path)) paths.push(path);
      continue;
    }
    if (takenByWalk(deps, entry)) paths.push(path);
  }
  return indexedFiles(deps, paths, new Map());
}

/**
 * The files under one directory when the index can vouch for that part of
 * the tree without walking the rest (`checkSubtree`): those the walk takes
 * there, each vouched for when its manifest row has its size and time.
 */
function subtreeFiles(deps: IndexAndChunks, under: string): IndexedFiles | undefined {
  const states = deps.indexer.storedDirectoryStates();
  const subtree = states && checkSubtree(deps.root, deps.config, under, states, deps.racyWindowMs);
  if (!subtree) return undefined;
  const paths: string[] = [];
  const vouched = new Map<number, string>();
  if (subtree.state === "fresh") {
    // Every directory checked is below `under`: its rows through the path index (by directory, a package's
    // hundreds of directories read the whole manifest).
    const manifest = new Map(deps.manifest.under(under).map((entry) => [entry.path, entry]));
    for (const [path, onDisk] of subtree.files) {
      const entry = manifest.get(path);
      if (entry?.size === onDisk.size && entry.mtimeMs === onDisk.mtimeMs) addRow(deps, entry, paths, vouched);
      else if (!isSecretPath(path) && onDisk.size <= deps.config.maxFileSize) paths.push(path);
    }
  }
  return indexedFiles(deps, paths, vouched);
}

/**
 * Whether the full-text index can rule out files for the pattern: each
 * alternative guarantees a term. Otherwise every file is read, and a
 * listing by name is all it needs (`listedByName`); one that rules files
 * out is better served by the fresh check, whose walk stats the files it
 * skips faster than a `stat` by path of each.
 */
function narrows({ alternatives, ignoreCase }: Narrowing): boolean {
  return alternatives.every((runs) => termsOf(runs, ignoreCase).length > 0);
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

function indexedFiles(deps: IndexAndChunks, paths: string[], vouched: ReadonlyMap<number, string>): IndexedFiles {
  return {
    paths,
    mayHold(alternatives, ignoreCase) {
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
      const vouchedPaths = new Set(vouched.values());
      return new Set(paths.filter((path) => holders.has(path) || !vouchedPaths.has(path)));
    },
  };
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
