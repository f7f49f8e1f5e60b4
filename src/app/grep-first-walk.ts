import type { IndexedFiles } from "../agent/tools/grep-files.js";
import type { FileVersion } from "../agent/tools/grep-matcher.js";
import type { IndexConfig } from "../config/schema.js";
import type { ProjectIndexer } from "../indexer/project-indexer.js";
import { type ListedDirectory, pathsOf, subtreeByStates, subtreeStillHolds } from "../indexer/subtree-freshness.js";
import { isSecretPath } from "../security/secrets.js";
import type { StoredDirectoryState } from "../store/directory-state-repository.js";
import type { FileSketches, SketchedFile } from "../store/file-sketches.js";
import { probeOf } from "./grep-sketch-probe.js";
import { KEPT_MANIFEST_IDLE_MS } from "./kept-manifest.js";

/** Directories whose listings are kept at once. */
const KEPT_SUBTREES = 8;

/** The files the first walk took below a directory searched, and the committed ones among them with their sketches. */
interface ListedSubtree {
  directories: readonly ListedDirectory[];
  paths: readonly string[];
  members: ReadonlySet<string>;
  sketched: Map<string, SketchedFile>;
}

export interface FirstWalkListingDeps {
  root: string;
  config: IndexConfig;
  indexer: Pick<ProjectIndexer, "firstWalkVersion" | "firstWalkStates">;
  sketches: Pick<FileSketches, "indexedAbove">;
  /** See `snapshotHolds`. */
  racyWindowMs: number;
  /** How long what was read stays after the last search (`KEPT_MANIFEST_IDLE_MS`). */
  idleMs?: number;
}

/**
 * grep's listing of the tree before any complete run (docs/DESIGN-NOTES.md,
 * "grep while a first index runs"): the files the running first index's walk
 * took, as long as no directory has changed since (a `stat` of each
 * directory and ignore file), and of those the ones the run has committed
 * with a sketch, ruled out by it while they keep the size and time they
 * were indexed at. The walk's states are kept until another walk replaces
 * them; the committed files are read incrementally (a first index inserts
 * its files, so their ids only grow), and both go after `idleMs` without a
 * search.
 */
export class FirstWalkListing {
  private states: { version: string; byPath: Map<string, StoredDirectoryState> } | undefined;
  /**
   * What the states list below each directory searched, with the secret
   * names left out: read from the states once, checked against the disk at
   * each search (building it was most of a listing's 60–140 ms on biome).
   */
  private subtrees = new Map<string, ListedSubtree>();
  /** The committed files read so far, by path, and the highest id read. */
  private committed = new Map<string, SketchedFile>();
  private readAbove = 0;
  private releaseTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: FirstWalkListingDeps) {}

  /** The files below `under` ('' for all) and which may hold a match; undefined when the walk's listing cannot be trusted. */
  files(under: string): IndexedFiles | undefined {
    const states = this.walkStates();
    if (!states) return undefined;
    const { root, config, racyWindowMs } = this.deps;
    const subtree = this.subtree(under, states);
    if (!subtree) return undefined;
    const held = subtreeStillHolds(root, config, under, states, subtree.directories, racyWindowMs);
    if (!held) return undefined;
    if (held !== "held") return { paths: [], mayHold: () => undefined };
    this.readCommitted();
    const { paths, sketched } = subtree;
    const unlessChanged: ReadonlyMap<string, FileVersion> = sketched;
    return {
      paths,
      unlessChanged,
      mayHold(alternatives, ignoreCase) {
        const probe = probeOf(alternatives, ignoreCase);
        if (!probe) return undefined;
        // Asked per path: most files of a first index under way are not committed yet, and a set of them cost 15 ms a search.
        return {
          has(path) {
            // A file not committed yet, or without a sketch, is read.
            const file = sketched.get(path);
            return !file || probe.mayHold(file.sketch);
          },
        };
      },
    };
  }

  /** What the states list below `under`, kept while they are the same. */
  private subtree(under: string, states: ReadonlyMap<string, StoredDirectoryState>): ListedSubtree | undefined {
    const kept = this.subtrees.get(under);
    if (kept) return kept;
    const directories = subtreeByStates(this.deps.config, under, states);
    if (!directories) return undefined;
    // The walk takes files it then skips by name (secrets) or size: grep never reads the first, and passes over the second as it reads.
    // In the order grep lists its files in: sorting what is already in order costs one comparison a file.
    const paths = pathsOf(directories)
      .filter((path) => !isSecretPath(path))
      .sort();
    const subtree: ListedSubtree = { directories, paths, members: new Set(paths), sketched: new Map() };
    for (const [path, file] of this.committed) if (subtree.members.has(path)) subtree.sketched.set(path, file);
    // A model greps a few directories: past a few kept, start over.
    if (this.subtrees.size >= KEPT_SUBTREES) this.subtrees.clear();
    this.subtrees.set(under, subtree);
    return subtree;
  }

  /** The first walk's states, read again only when another walk replaced them. */
  private walkStates(): Map<string, StoredDirectoryState> | undefined {
    const version = this.deps.indexer.firstWalkVersion();
    if (version === undefined) {
      this.release();
      return undefined;
    }
    if (this.states?.version !== version) {
      this.release();
      this.states = { version, byPath: this.deps.indexer.firstWalkStates() };
    }
    this.releaseLater();
    return this.states.byPath;
  }

  /** Reads the files committed since the last search, into the kept subtrees too. */
  private readCommitted(): void {
    for (const file of this.deps.sketches.indexedAbove(this.readAbove)) {
      this.committed.set(file.path, file);
      this.readAbove = file.id;
      for (const subtree of this.subtrees.values()) if (subtree.members.has(file.path)) subtree.sketched.set(file.path, file);
    }
  }

  private release(): void {
    this.states = undefined;
    this.subtrees = new Map();
    this.committed = new Map();
    this.readAbove = 0;
  }

  private releaseLater(): void {
    clearTimeout(this.releaseTimer);
    this.releaseTimer = setTimeout(() => this.release(), this.deps.idleMs ?? KEPT_MANIFEST_IDLE_MS);
    this.releaseTimer.unref();
  }
}
