import type { IndexConfig } from "../../config/schema.js";
import type { DirectoryState } from "../../indexer/directory-state.js";
import { scanTree, walkRulesKey } from "../../indexer/scanner.js";

interface WalkedTree {
  states: Map<string, DirectoryState>;
  /** The files the walk takes in each directory, relative to the root. */
  files: Map<string, readonly string[]>;
}

/**
 * The files of trees grep walked before (when the index cannot list them:
 * while a first index is built, or in a directory outside the project),
 * kept by directory with the states a walk compares with, so that the next
 * walk is incremental as a fresh check is: an unchanged directory costs a
 * `stat` per file, and only changed ones are listed and judged again.
 */
export class WalkedTrees {
  private readonly trees = new Map<string, WalkedTree>();

  /** The files the indexer would read under `root`, '/'-separated and relative to it. */
  async list(root: string, config: IndexConfig): Promise<string[]> {
    const key = `${root}\0${walkRulesKey(config)}`;
    const known = this.trees.get(key);
    const scan = await scanTree(root, config, known ? { previous: known.states } : {});
    const tree = known ?? { states: new Map(), files: new Map() };
    for (const path of scan.vanished) {
      tree.states.delete(path);
      tree.files.delete(path);
    }
    for (const directory of scan.changed) {
      tree.states.set(directory.path, directory.state);
      tree.files.set(
        directory.path,
        directory.files.map((file) => file.path),
      );
    }
    for (const { path, state } of scan.restated) tree.states.set(path, state);
    this.trees.set(key, tree);
    return [...tree.files.values()].flat();
  }
}
