import type { DirectoryState } from "./directory-state.js";

/**
 * The states a walk compares with, handed over one directory at a time as
 * the walk reaches it (`DirectoryStatesInPathOrder` reads them from the
 * database so; a map is wrapped).
 */
export interface StatesToTake {
  /** The state stored for this directory, if any; each is taken once. */
  take(path: string): DirectoryState | undefined;
  /** The stored directories never taken: the walk did not reach them. */
  untaken(): Iterable<string>;
}

/** A map's states handed over as `StatesToTake` (a walk of grep's, tests). */
export class TakenFromMap implements StatesToTake {
  private readonly taken = new Set<string>();

  constructor(private readonly states: ReadonlyMap<string, DirectoryState>) {}

  take(path: string): DirectoryState | undefined {
    const state = this.states.get(path);
    if (state) this.taken.add(path);
    return state;
  }

  untaken(): string[] {
    return [...this.states.keys()].filter((path) => !this.taken.has(path));
  }
}
