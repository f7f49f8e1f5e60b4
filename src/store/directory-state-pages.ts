import { compareUtf8 } from "../files/utf8-order.js";
import type { SqliteDatabase } from "./database.js";
import { type DirectoryStateRow, STATE_COLUMNS, type StoredDirectoryState, stateOfRow } from "./directory-state-repository.js";

/** Rows read at a time: a few hundred KB of names at most, young garbage once the walk has passed them. */
const DEFAULT_PAGE_ROWS = 1_000;

/**
 * The stored directory states handed to a walk one directory at a time, as
 * it reaches them, instead of all of them before it: a fresh check of a
 * 250k-file tree otherwise held 27k states (29 MB of strings and objects)
 * through its walk, and the collector copied and marked them there
 * (docs/DESIGN-NOTES.md, "The stored states read as the walk reaches
 * them"). Rows come in the table's key order (UTF-8 byte order of the
 * path), a page at a time, each page read whole so that no statement stays
 * open while the walk yields and other code uses the connection. A row
 * read before its directory is asked for waits in `setAside`; a walk that
 * asks in about key order (the fresh check's, `compareAsDirectories`)
 * keeps that to a few rows.
 */
export class DirectoryStatesInPathOrder {
  private page: DirectoryStateRow[] = [];
  private next = 0;
  private lastPath: string | undefined;
  private exhausted = false;
  private readonly setAside = new Map<string, DirectoryStateRow>();
  private readonly firstPage;
  private readonly laterPage;
  /** The most rows held at once (a page and those set aside): what the tests hold to a bound. */
  mostHeld = 0;

  constructor(
    db: SqliteDatabase,
    private readonly pageRows = DEFAULT_PAGE_ROWS,
  ) {
    this.firstPage = db.prepare<[number], DirectoryStateRow>(`SELECT ${STATE_COLUMNS} FROM directory_states ORDER BY path LIMIT ?`).raw();
    this.laterPage = db
      .prepare<[string, number], DirectoryStateRow>(`SELECT ${STATE_COLUMNS} FROM directory_states WHERE path > ? ORDER BY path LIMIT ?`)
      .raw();
  }

  /** The state stored for this directory, once: asked again, it is undefined. */
  take(path: string): StoredDirectoryState | undefined {
    const early = this.setAside.get(path);
    if (early) {
      this.setAside.delete(path);
      return stateOfRow(early);
    }
    for (let row = this.peek(); row; row = this.peek()) {
      const order = row[0] === path ? 0 : compareUtf8(row[0], path);
      if (order > 0) return undefined; // every later row sorts after it too: nothing stored for it
      this.next++;
      if (order === 0) return stateOfRow(row);
      this.setAside.set(row[0], row);
      this.mostHeld = Math.max(this.mostHeld, this.page.length + this.setAside.size);
    }
    return undefined;
  }

  /** Every stored path never taken, reading what is left of the table. */
  untaken(): string[] {
    const paths = [...this.setAside.keys()];
    for (let row = this.peek(); row; row = this.peek()) {
      paths.push(row[0]);
      this.next++;
    }
    return paths;
  }

  private peek(): DirectoryStateRow | undefined {
    if (this.next >= this.page.length && !this.exhausted) {
      this.page = this.lastPath === undefined ? this.firstPage.all(this.pageRows) : this.laterPage.all(this.lastPath, this.pageRows);
      this.next = 0;
      this.exhausted = this.page.length < this.pageRows;
      this.lastPath = this.page.at(-1)?.[0] ?? this.lastPath;
      this.mostHeld = Math.max(this.mostHeld, this.page.length + this.setAside.size);
    }
    return this.page[this.next];
  }
}
